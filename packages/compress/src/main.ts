// hermes-compress: trajectories in, trajectories out (input order), each brought under its token
// budget or passed through with the reason why not. The pipeline per record is compressRecord.ts;
// settings are config.ts; this file declares the CLI and runs the stream.
import { resolve } from 'node:path';
import {
  defineCommand,
  isPlainObject,
  loadTokenCounter,
  main as runMain,
  pricesOption,
  TOKEN_ENCODINGS,
  writeJsonAtomic,
  type CliSpec,
  type InputRecord,
  type PricesArgs,
  type RunContext,
  type StreamArgs,
  type TokenEncoding,
} from '@hermes-datagen/core';
import { checkConfig, configHash, DEFAULTS, parseReducerList, readConfigFile, STRATEGIES, type CompressConfig, type Strategy } from './config.js';
import type { CompressEnv, Outcome } from './compressRecord.js';
import { compressionMetrics, AggregateMetrics } from './metrics.js';
import { compressStream } from './stream.js';
import { ENDPOINT_ENV_HELP, endpointOptions, type EndpointArgs } from '@hermes-datagen/core/endpoint';
import { endpointSummarizer } from './endpointSummarizer.js';

interface CompressArgs extends EndpointArgs, PricesArgs {
  encoding?: TokenEncoding;
  tokenizer?: string;
  targetMaxTokens?: number;
  summaryTargetTokens?: number;
  ratio?: number;
  minTokensAfter?: number;
  maxTokensAfter?: number;
  forceAboveTokens?: number;
  protectLast?: number;
  protectFinalAction?: boolean;
  protectErrors?: boolean;
  reducers?: string;
  dedupWindow?: number;
  toolOutputMaxTokens?: number;
  strategy?: Strategy;
  maxRetries?: number;
  retryDelay?: number;
  temperature?: number;
  notice?: boolean;
  noticeText?: string;
  perRecordMetrics?: boolean;
  concurrency?: number;
  timeout?: number;
  metricsFile?: string;
}

const BUDGET = 'Budget:';
const PROTECT = 'Protected turns:';
const STAGES = 'Reducers and strategy:';
const OUTPUT = 'Output:';

const HELP = `How a record is compressed (hermes-compress section of the README has the details):
  1. Target: --target-max-tokens T (Hermes mode), or with --ratio R:
     min(--max-tokens-after, max(--min-tokens-after, ceil(R × N))) for a record of N tokens.
     A record at or under its target passes through unchanged ("skipped", reason under_target); in ratio
     mode one whose R × N is under --min-tokens-after too (reason ratio_under_min). A record above
     --force-above-tokens is always compressed, to at most that many tokens. A record whose UTF-8 size
     is under its target is never tokenised (a token is at least one byte).
  2. Window: everything but the protected turns: the first system, human, gpt and tool turns, the last
     --protect-last turns and the final action (the last gpt turn with a tool call, and its result).
     A window never separates a <tool_call> from its <tool_response>.
  3. Stage A, inside the window, stopping as soon as the record fits (--reducers):
     repeated_observations  a tool result equal to one of the previous --dedup-window results becomes a reference
     redundant_tool_outputs a tool result over --tool-output-max-tokens keeps its head and tail around a counted marker
     intermediate_thoughts  <think> bodies of window gpt turns are emptied (the empty block stays)
     Tool results that carry an error are kept (--no-protect-errors to reduce them too).
  4. Stage B: the oldest window turns, only as many as needed, become one human turn starting with
     "[CONTEXT SUMMARY]:" (--strategy key_decision_extract, llm or placeholder). A summary that would not
     save tokens is not used: a record never grows. Quoted tags are escaped (&lt;tool_call>).
  5. The system turn gets upstream's notice (--no-notice to leave it). A result under --min-tokens-after is
     the error "compressed trace too short, min_tokens_after not satisfied": the original is emitted
     (--on-error skip drops it instead, into --rejects when given).

Every record gets metadata.compression {tokens_before, tokens_after, status, reason, strategy, target,
config_hash} (tokens null when the record was not tokenised); a compressed one also gets upstream's
compression_metrics. status: compressed, skipped, unchanged (could not be compressed: no_window,
no_net_savings) or error (min_tokens_after, timeout, interrupted). A record compressed by an earlier run
that fits its target, or compressed under the same settings (config_hash), passes through byte for byte
(reason already_compressed).

--config FILE (YAML or JSON) takes upstream's trajectory_compression.yaml keys (compression.*,
protected_turns.*, summarization.temperature|max_retries|retry_delay, output.add_summary_notice|
summary_notice_text, processing.max_concurrent_requests|per_trajectory_timeout|save_over_limit,
metrics.per_trajectory|output_file) and this project's (tokenizer.encoding|file, budget.ratio|
min_tokens_after|max_tokens_after|force_above_tokens, protected_turns.final_action|error_results,
reducers.enabled|dedup_window|tool_output_max_tokens, strategy.name), and the endpoint's providers:
and default_model:. Flags win over the file. Unknown keys are warned about; a wrong type exits 2.`;

const compress = defineCommand({
  command: '$0 [files..]',
  describe: 'Bring trajectories under a token budget; each record says how (metadata.compression).',
  stream: true,
  options: (y) =>
    endpointOptions(
      pricesOption(y, STAGES, 'llm: the closing line says what the summary calls cost')
        .option('encoding', { choices: TOKEN_ENCODINGS, describe: `tiktoken encoding for counting (default ${DEFAULTS.encoding})`, group: BUDGET })
        .option('tokenizer', { type: 'string', describe: 'count with this tiktoken ranks file instead (.tiktoken, or tiktoken encoder JSON)', group: BUDGET })
        .option('target-max-tokens', { type: 'number', describe: `Hermes mode target (default ${DEFAULTS.targetMaxTokens})`, group: BUDGET })
        .option('summary-target-tokens', {
          type: 'number',
          describe: `planned size of the summary turn (default ${DEFAULTS.summaryTargetTokens})`,
          group: BUDGET,
        })
        .option('ratio', { type: 'number', describe: 'ratio mode: keep this share of the tokens, e.g. 0.15', group: BUDGET })
        .option('min-tokens-after', { type: 'number', describe: 'never compress below this (e.g. 800)', group: BUDGET })
        .option('max-tokens-after', { type: 'number', describe: 'ratio mode cap (default: --target-max-tokens)', group: BUDGET })
        .option('force-above-tokens', { type: 'number', describe: 'always compress records above this (e.g. 50000)', group: BUDGET })
        .option('protect-last', { type: 'number', describe: `keep the last N turns (default ${DEFAULTS.protectLast})`, group: PROTECT })
        .option('protect-final-action', { type: 'boolean', describe: 'keep the last gpt turn with a tool call and its result (default true)', group: PROTECT })
        .option('protect-errors', { type: 'boolean', describe: 'keep tool results that carry an error out of Stage A (default true)', group: PROTECT })
        .option('reducers', { type: 'string', describe: 'Stage A reducers, comma-separated, or none (default all three)', group: STAGES })
        .option('dedup-window', {
          type: 'number',
          describe: `repeated_observations looks this many tool results back (default ${DEFAULTS.dedupWindow})`,
          group: STAGES,
        })
        .option('tool-output-max-tokens', {
          type: 'number',
          describe: `redundant_tool_outputs cuts results above this (default ${DEFAULTS.toolOutputMaxTokens})`,
          group: STAGES,
        })
        .option('strategy', { choices: STRATEGIES, describe: 'Stage B summary (default key_decision_extract, deterministic)', group: STAGES })
        .option('max-retries', { type: 'number', describe: `llm: attempts per summary (default ${DEFAULTS.maxRetries})`, group: STAGES })
        .option('retry-delay', { type: 'number', describe: `llm: backoff base in seconds (default ${DEFAULTS.retryDelay})`, group: STAGES })
        .option('temperature', {
          type: 'number',
          describe: `llm: sampling temperature (default ${DEFAULTS.temperature}; never sent for Kimi models)`,
          group: STAGES,
        })
        .option('concurrency', { alias: 'c', type: 'number', describe: `llm: records in flight (default ${DEFAULTS.concurrency})`, group: STAGES })

        .option('timeout', {
          type: 'number',
          describe: `llm: seconds per record; past it the record is emitted uncompressed, status error (default ${DEFAULTS.timeout})`,
          group: STAGES,
        })
        .option('notice', { type: 'boolean', describe: "append upstream's notice to the system turn of a compressed record (default true)", group: OUTPUT })
        .option('notice-text', { type: 'string', describe: 'the notice text', group: OUTPUT })
        .option('per-record-metrics', { type: 'boolean', describe: 'add compression_metrics to compressed records (default true)', group: OUTPUT })
        .option('metrics-file', {
          type: 'string',
          describe: "write upstream's aggregate metrics here (JSON), with counts by status and reason",
          group: OUTPUT,
        }),
    ),
  examples: [
    ['$0 run.jsonl > compressed.jsonl', 'Hermes defaults: 15,250-token budget, deterministic summaries'],
    ['$0 --ratio 0.15 --min-tokens-after 800 --max-tokens-after 6000 --force-above-tokens 50000 run.jsonl', "the requirements' settings"],
    ['$0 --strategy llm --model anthropic/claude-sonnet-4-6 -c 8 --metrics-file m.json run.jsonl', 'LLM summaries from the one endpoint'],
    ['$0 --config trajectory_compression.yaml run.jsonl', "upstream's YAML"],
    ['hermes-filter run.jsonl | $0 --ratio 0.2 --min-tokens-after 800 | hermes-stats --summary s.json', 'a stage in a pipeline'],
  ],
  run: async (args, ctx) => {
    await compressCommand(args, ctx);
  },
});

function settings(args: CompressArgs, ctx: RunContext): CompressConfig {
  const file = args.config === undefined ? {} : readConfigFile({ option: '--config', path: args.config, cwd: ctx.io.cwd }, (m) => ctx.log.warn(m));
  const flags: Partial<CompressConfig> = {
    encoding: args.encoding,
    tokenizerFile: args.tokenizer,
    targetMaxTokens: args.targetMaxTokens,
    summaryTargetTokens: args.summaryTargetTokens,
    ratio: args.ratio,
    minTokensAfter: args.minTokensAfter,
    maxTokensAfter: args.maxTokensAfter,
    forceAboveTokens: args.forceAboveTokens,
    protectLast: args.protectLast,
    protectFinalAction: args.protectFinalAction,
    protectErrors: args.protectErrors,
    reducers: args.reducers === undefined ? undefined : parseReducerList(args.reducers),
    dedupWindow: args.dedupWindow,
    toolOutputMaxTokens: args.toolOutputMaxTokens,
    strategy: args.strategy,
    maxRetries: args.maxRetries,
    retryDelay: args.retryDelay,
    temperature: args.temperature,
    addNotice: args.notice,
    noticeText: args.noticeText,
    perRecordMetrics: args.perRecordMetrics,
    concurrency: args.concurrency,
    timeout: args.timeout,
    metricsFile: args.metricsFile,
  };
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  return checkConfig({ ...DEFAULTS, ...file, ...given });
}

async function compressCommand(args: CompressArgs & StreamArgs, ctx: RunContext): Promise<void> {
  const config = settings(args, ctx);
  const counter = loadTokenCounter({
    encoding: config.encoding,
    ...(config.tokenizerFile !== undefined
      ? { ranks: { option: args.tokenizer !== undefined ? '--tokenizer' : '--config tokenizer.file', path: config.tokenizerFile, cwd: ctx.io.cwd } }
      : {}),
  });
  const llm = config.strategy === 'llm' ? await endpointSummarizer(args, ctx, config) : undefined;
  const env: CompressEnv = { config, counter, ...(llm ? { summarizer: llm.summarizer } : {}) };
  const hash = configHash(config, llm?.model);
  const aggregate = new AggregateMetrics();
  const out = await ctx.openOutput();
  const rejects = await ctx.rejects();
  const own = (record: InputRecord): InputRecord => ({ ...record, bytes: Buffer.from(record.bytes) });
  const stream = compressStream(
    ctx.readRecords({ schema: 'trajectory' }),
    env,
    {
      configHash: hash,
      concurrency: config.concurrency,
      timeoutMs: config.timeout * 1000,
      signal: ctx.signal,
    },
    own,
  );
  for await (const { record, outcome } of stream) {
    aggregate.add(outcome.status, outcome.reason, outcome.strategy, outcome.metrics);
    ctx.stats.add(`status.${outcome.status}`);
    ctx.stats.add(`reason.${outcome.reason}`);
    const stillOver = outcome.metrics?.stillOverLimit === true;
    if (outcome.status === 'error' && args.onError === 'skip') {
      ctx.stats.add('dropped');
      ctx.log.warn(`record dropped (--on-error skip): ${outcome.message ?? outcome.reason}`, record.place, 'record-error');
      await rejects?.write({ line: record.place.line, source: record.place.source, reason: outcome.message ?? outcome.reason, raw: record.raw });
      continue;
    }
    if (outcome.status === 'error') ctx.log.warn(outcome.message ?? outcome.reason, record.place, 'record-error');
    if (stillOver && !config.saveOverLimit) {
      ctx.stats.add('dropped');
      continue;
    }
    if (outcome.status === 'skipped' && isPlainObject(record.value['metadata']) && record.value['metadata']['compression'] !== undefined) {
      await out.writeLine(record.bytes);
    } else if (outcome.status === 'compressed') {
      await out.write(outputRecord(record.value, outcome, hash, config.perRecordMetrics));
    } else {
      await out.writeLine(withMetadata(record, outputRecord(record.value, outcome, hash, false)['metadata']));
    }
  }
  if (config.metricsFile !== undefined) await writeJsonAtomic(resolve(ctx.io.cwd, config.metricsFile), aggregate.toJSON());
  ctx.log.info(summaryLine(aggregate, ctx));
  const spent = llm?.cost.describe() ?? '';
  if (spent !== '') ctx.log.info(`summary calls cost ${spent}`);
}

/** The record with its new conversation, metadata.compression in metadata's place, compression_metrics last. */
export function outputRecord(value: Record<string, unknown>, outcome: Outcome, hash: string, perRecordMetrics: boolean): Record<string, unknown> {
  const metadata = isPlainObject(value['metadata']) ? value['metadata'] : {};
  const compression = {
    tokens_before: outcome.tokensBefore,
    tokens_after: outcome.tokensAfter,
    status: outcome.status,
    reason: outcome.reason,
    strategy: outcome.strategy,
    target: outcome.target,
    config_hash: hash,
    ...(outcome.message !== undefined ? { message: outcome.message } : {}),
  };
  const out: Record<string, unknown> = { ...value, metadata: { ...metadata, compression } };
  if (outcome.conversations) out['conversations'] = outcome.conversations;
  if (outcome.status === 'compressed' && perRecordMetrics && outcome.metrics) out['compression_metrics'] = compressionMetrics(outcome.metrics);
  return out;
}

/**
 * The input line with only its metadata replaced, when the line holds the metadata exactly as
 * JSON.stringify writes it, once (compact lines, as every hermes-* stage writes them); else the record
 * written anew. Most records pass with their conversation unchanged, and this spares writing it again.
 */
function withMetadata(record: InputRecord, metadata: unknown): string {
  const old = `"metadata":${JSON.stringify(record.value['metadata'])}`;
  const at = record.raw.indexOf(old);
  if (at !== -1 && record.raw.indexOf(old, at + 1) === -1) {
    return `${record.raw.slice(0, at)}"metadata":${JSON.stringify(metadata)}${record.raw.slice(at + old.length)}`;
  }
  return JSON.stringify({ ...record.value, metadata });
}

function summaryLine(aggregate: AggregateMetrics, ctx: RunContext): string {
  const n = ctx.stats.get('records_in');
  const { before, after } = aggregate.tokens;
  const parts = ['compressed', 'skipped', 'unchanged', 'error'].map((s) => `${s} ${aggregate.count(s)}`);
  const dropped = ctx.stats.get('dropped');
  const ratio = before > 0 ? ` (${((after / before) * 100).toFixed(1)}% of tokens kept over the records counted)` : '';
  return `${n} records: ${parts.join(', ')}${dropped > 0 ? `, dropped ${dropped}` : ''}; tokens ${before} -> ${after}${ratio}`;
}

export const spec: CliSpec = {
  name: 'hermes-compress',
  summary: 'Bring Hermes trajectories under a token budget: deterministic by default, LLM summaries optional; never grows a record.',
  commands: [compress],
  env: ENDPOINT_ENV_HELP,
  epilog: HELP,
};

export function main(): void {
  runMain(spec);
}
