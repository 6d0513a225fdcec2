// hermes-filter: trajectories in, kept trajectories out, byte for byte. Each rule is a small function
// (rules.ts, hallucinatedTools.ts, traceRules.ts); ruleSet.ts picks and orders them from the options;
// judge.ts applies them to one record. This file declares the CLI and runs the stream.
import { defineCommand, main as runMain, toolsRegistryOption, type CliSpec, type RunContext } from '@hermes-datagen/core';
import { judge, withVerdict } from './judge.js';
import { selectRules, type FilterOptions } from './ruleSet.js';

interface FilterArgs extends FilterOptions {
  invert: boolean;
}

const RULES_HELP = `Rules, in the order they are applied. A record is dropped by the first that fails, counted under
the reason in brackets. A turn is a gpt (assistant) turn.
  [not_completed]          --require-completed: "completed" is false
  [partial]                --drop-partial: "partial" is true
  [min_turns] [max_turns]  --min-turns N / --max-turns N: fewer / more than N gpt turns
  [zero_reasoning]         on by default (--no-zero-reasoning): no gpt turn has a non-empty <think> or
                           <REASONING_SCRATCHPAD> block. The empty "<think>\\n</think>" that upstream inserts
                           does not count, and a record without gpt turns has no reasoning.
  [min_reasoning_ratio]    --min-reasoning-ratio R: less than share R of the gpt turns have reasoning
  [hallucinated_tool]      on by default (--no-hallucinated-tools): a <tool_call> in a gpt turn, or a tool_stats
                           key with count > 0, names a tool outside the valid set: the tool registry,
                           --tools-registry FILE, or --valid-tools a,b; with --strict-offered the tool must
                           also be offered in the record's system turn. A malformed <tool_call> (not JSON, no
                           name, arguments not an object) is an invalid call.
  [empty_action]           --empty-action: a gpt turn with neither text nor a tool call
  [repeated_thought]       --repeated-thought: a gpt turn's non-empty thought equals one of the
                           --repeated-thought-window N gpt turns before it (default 1: twice in a row)
  [max_tool_failure_rate]  --max-tool-failure-rate R: more than share R of the tool results failed
  [tool_error_streak]      --tool-error-streak N: N failing tool results in a row
A tool result fails by upstream's rule: JSON with a non-null "error" (also inside "content") or
"success": false, or text that is empty or starts with "error:"; a <tool_response> that cannot be read fails.

Tombstone rows (a "discarded" key) are not trajectories: they are never kept, and count as [tombstone].
Schema failures and bad lines follow --on-error like every hermes-* stage.

--rejects FILE receives both kinds of drop, one JSON object a line:
  dropped records:  the input line unchanged plus "reason" and "detail" as its last keys
  bad input lines:  {"line", "source", "reason", "raw"} (only under --on-error skip)
--invert writes the dropped records, in the same form, to stdout instead of the kept ones.
Counts per reason go to stderr at the end and to --stats-out (counters kept, dropped, dropped.<reason>).`;

const filter = defineCommand({
  command: '$0 [files..]',
  describe: 'Keep the trajectories that pass the quality rules; write them unchanged (byte for byte).',
  stream: true,
  options: (y) =>
    toolsRegistryOption(y, 'Default rules:')
      .option('zero-reasoning', {
        type: 'boolean',
        default: true,
        describe: 'drop records without reasoning (turn off: --no-zero-reasoning)',
        group: 'Default rules:',
      })
      .option('min-reasoning-ratio', {
        type: 'number',
        describe: 'keep only records where at least this share of gpt turns has reasoning (0-1)',
        group: 'Default rules:',
      })
      .option('hallucinated-tools', {
        type: 'boolean',
        default: true,
        describe: 'drop records calling tools outside the valid set (turn off: --no-hallucinated-tools)',
        group: 'Default rules:',
      })
      .option('valid-tools', { type: 'string', describe: 'valid tools listed here, comma-separated, instead of a registry', group: 'Default rules:' })
      .option('strict-offered', {
        type: 'boolean',
        default: false,
        describe: "a called tool must also be offered in the record's system turn",
        group: 'Default rules:',
      })
      .conflicts('tools-registry', 'valid-tools')
      .option('require-completed', { type: 'boolean', default: false, describe: 'drop records with "completed": false', group: 'More rules (off by default):' })
      .option('drop-partial', { type: 'boolean', default: false, describe: 'drop records with "partial": true', group: 'More rules (off by default):' })
      .option('min-turns', { type: 'number', describe: 'drop records with fewer gpt turns', group: 'More rules (off by default):' })
      .option('max-turns', { type: 'number', describe: 'drop records with more gpt turns', group: 'More rules (off by default):' })
      .option('max-tool-failure-rate', {
        type: 'number',
        describe: 'drop records where a larger share of tool results failed (0-1)',
        group: 'More rules (off by default):',
      })
      .option('repeated-thought', { type: 'boolean', default: false, describe: 'drop records that repeat a thought', group: 'More rules (off by default):' })
      .option('repeated-thought-window', {
        type: 'number',
        describe: 'how many earlier gpt turns a thought is compared with (default 1)',
        group: 'More rules (off by default):',
      })
      .option('empty-action', {
        type: 'boolean',
        default: false,
        describe: 'drop records with a gpt turn that has neither text nor a tool call',
        group: 'More rules (off by default):',
      })
      .option('tool-error-streak', {
        type: 'number',
        describe: 'drop records with this many failing tool results in a row',
        group: 'More rules (off by default):',
      })
      .option('invert', {
        type: 'boolean',
        default: false,
        group: 'Output:',
        describe: 'write the dropped records (with reason and detail) to stdout instead of the kept ones',
      }),
  examples: [
    ['$0 run/trajectories.jsonl > kept.jsonl', 'the default rules: reasoning present, only known tools'],
    ['$0 --rejects dropped.jsonl --stats-out filter.json batch_*.jsonl.gz -o kept.jsonl', 'keep the drops and the counts'],
    ['$0 --valid-tools terminal,read_file,write_file --strict-offered run.jsonl', 'your own tool list, and only offered tools'],
    ['$0 --require-completed --drop-partial --tool-error-streak 3 --repeated-thought run.jsonl', 'stricter, for RL'],
    ['$0 --invert run.jsonl | jq -r .reason | sort | uniq -c', 'look at what is dropped, and why'],
    ['hermes-generate prompts.jsonl | $0 | hermes-stats --summary stats.json > kept.jsonl', 'a stage in a pipeline'],
  ],
  run: async (args, ctx) => {
    await filterStream(ctx, args);
  },
});

async function filterStream(ctx: RunContext, args: FilterArgs): Promise<void> {
  const rules = selectRules(args, ctx.io.cwd);
  // Present even when 0, so every --stats-out file has the same keys.
  ctx.stats.add('kept', 0);
  ctx.stats.add('dropped', 0);
  const out = await ctx.openOutput();
  const rejects = await ctx.rejects();
  for await (const batch of ctx.readRecords({ schema: 'trajectory', tombstones: true })) {
    for (const record of batch) {
      const verdict = judge(record, rules);
      if (verdict === null) {
        ctx.stats.add('kept');
        if (!args.invert) await out.writeLine(record.bytes);
        continue;
      }
      ctx.stats.add('dropped');
      ctx.stats.add(`dropped.${verdict.reason}`);
      const line = withVerdict(record.raw, verdict);
      if (args.invert) await out.writeLine(line);
      await rejects?.writeLine(line);
    }
  }
  ctx.log.info(countsLine(ctx));
}

function countsLine({ stats }: RunContext): string {
  const kept = stats.get('kept');
  const dropped = stats.get('dropped');
  const reasons = Object.entries(stats.toJSON())
    .filter(([name]) => name.startsWith('dropped.'))
    .map(([name, n]) => `${name.slice('dropped.'.length)} ${n}`);
  return `kept ${kept} of ${kept + dropped} records${dropped > 0 ? `; dropped ${dropped}: ${reasons.join(', ')}` : ''}`;
}

export const spec: CliSpec = {
  name: 'hermes-filter',
  summary: 'Drop Hermes trajectories that fail quality rules (no reasoning, hallucinated tools, and more); keep the rest unchanged.',
  commands: [filter],
  epilog: RULES_HELP,
};

export function main(): void {
  runMain(spec);
}
