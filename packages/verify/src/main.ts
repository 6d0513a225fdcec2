// hermes-verify: the result checklist (docs/rules.md#the-result-checklist) as a pipeline stage. Records pass through
// unchanged while each check sees them once; the checklist goes to stderr, --json writes it for
// machines, and the exit code is 1 when a check failed. The checks live in their own modules;
// verification.ts runs them.
import { defineCommand, main as runMain, toolsRegistryOption, type CliSpec } from '@hermes-datagen/core';
import { MIN_CALLS_FOR_TOOL_RATE } from './toolFailures.js';
import { MIN_RECORDS_FOR_DISTRIBUTION } from './toolDistribution.js';
import { verify } from './verification.js';

const CHECKS_HELP = `Checks, each PASS, WARN or FAIL with the numbers behind it ([id] as in --json):
  [schema]             every line a trajectory or tombstone of schemas/; a line that is not JSON is bad
                       input (exit 3, or skipped and counted here under --on-error skip)
  [count]              per prompt_index exactly --samples rows (trajectories, or tombstones of discards),
                       none outside the dataset, no id twice, each id of the dataset row at its index;
                       rows from --dataset (else the run's checkpoint); missing and extra indices listed.
                       --dropped FILE (repeatable): rows a stage before this one dropped on purpose are
                       accounted for, counted by file and reason: hermes-filter --rejects (the record
                       and its "reason"), hermes-generate's failures (--rejects, or a run's
                       failures.jsonl: "failed: <error_class>"), tombstones ("discarded: <reason>"),
                       a stage's --on-error skip rejects whose "raw" is a record ("rejected"). A row
                       both dropped and in the stream is a duplicate; only missing, extra and
                       duplicated rows fail. The files are read when the stream ends, so an earlier
                       stage of the same pipeline has finished writing them. delegate_task's sub-agent
                       records (metadata.parent_id) are counted apart: no dataset row of their own
  [completed]          completed: true and not partial (WARN; FAIL with --require-completed)
  [tool_failures]      failed / answered tool calls (tool_stats) at most --max-failure-rate, overall and per
                       tool (a tool with fewer than ${MIN_CALLS_FOR_TOOL_RATE} answered calls over the limit only warns)
  [tool_distribution]  WARN: a tool offered (system turn <tools>) in most records but never called, or a
                       call to a tool the record did not offer (needs ${MIN_RECORDS_FOR_DISTRIBUTION} records)
  [reasoning]          gpt turns with a non-empty <think>; WARN when a record has none, FAIL when no turn has any
  [unknown_tools]      every <tool_call>, used tool_stats key and metadata.unknown_tools is in the registry
  [secrets]            no API key patterns (sk-, AKIA, ghp_, AIza, hf_, xox, private keys, bearer tokens),
                       nor the value of $HERMES_API_KEY / $OPENAI_API_KEY / --api-key-env; never printed
  [structure]          roles in a legal order; each gpt turn one leading <think> then text and <tool_call>
                       blocks ({"name", "arguments": {...}}); the next turn a tool turn with one
                       <tool_response> block per call; no unclosed or forged tags (markup inside a block,
                       stray close tags: unescaped reasoning or tool output that parsers read as markup)
With --run-dir DIR (a hermes-generate --run-name directory, or upstream's data/<run_name>):
  [run.batch_files]    batch_N.jsonl: every line a whole record (a torn line FAILs), each id once
  [run.checkpoint]     checkpoint.json: every entry has its row (written/discarded, index, shard); rows not
                       yet listed WARN (a run stopped between checkpoint writes)
  [run.trajectories]   trajectories.jsonl = the batch files' trajectory lines, byte for byte, each once
  [run.statistics]     statistics.json: tool counts and rates, reasoning counters, discards (and
                       hermes-stats' record counts) recomputed from the batch files
  [run.manifest]       run.json's (and the checkpoint's) dataset hash = --dataset's SHA-256
  [run.failures]       failures.jsonl: failed prompts, none of which has a row
  Without FILES, the stream checked is DIR/trajectories.jsonl (its batch files before a merge exists).
Missing run files (no statistics.json before a run ends, no run.json in an upstream run) are WARN.`;

const verifyCommand = defineCommand({
  command: '$0 [files..]',
  describe: 'Check trajectories against the result checklist; pass them through unchanged (byte for byte).',
  stream: true,
  options: (y) =>
    toolsRegistryOption(
      y
        .option('dataset', { type: 'string', describe: 'the prompts JSONL the records were made from: rows, ids and hash', group: 'Checks:' })
        .option('dropped', {
          type: 'string',
          array: true,
          // One file per --dropped, so a FILES operand after it is not taken for one.
          nargs: 1,
          describe: 'rows a stage before dropped on purpose (filter --rejects, generate failures, tombstones): counted as accounted for; repeatable',
          group: 'Checks:',
        })
        .option('run-dir', {
          type: 'string',
          describe: 'also check this run directory (batch files, checkpoint, merge, statistics, run.json)',
          group: 'Checks:',
        })
        .option('samples', { type: 'number', default: 1, describe: 'records expected per dataset row (hermes-generate --samples)', group: 'Checks:' })
        .option('max-failure-rate', { type: 'number', default: 0.05, describe: 'highest acceptable share of failed tool calls (0-1)', group: 'Checks:' })
        .option('require-completed', {
          type: 'boolean',
          default: false,
          describe: 'an incomplete or partial record fails the check (default: warns)',
          group: 'Checks:',
        })
        .option('api-key-env', { type: 'string', describe: 'also look for the key held in this variable (never printed)', group: 'Checks:' }),
      'Checks:',
    )
      .option('json', { type: 'string', describe: 'write the report as JSON here (- for stdout, with --quiet)', group: 'Report:' })
      .option('quiet', {
        alias: 'q',
        type: 'boolean',
        default: false,
        describe: 'do not pass the records through: only check',
        group: 'Report:',
      }),
  examples: [
    ['hermes-generate prompts.jsonl | $0 --dataset prompts.jsonl | hermes-to-atropos > sft.jsonl', 'a stage in a pipeline'],
    ['$0 --run-dir data/rl_coding_20250612 --dataset prompts.jsonl --quiet --json verify.json', 'check a whole run directory'],
    ['$0 --require-completed --max-failure-rate 0.02 -q kept.jsonl', 'stricter, for RL data'],
    ['$0 --samples 4 --dataset prompts.jsonl -q run.jsonl', 'four trajectories per prompt'],
  ],
  run: (args, ctx) => verify(args, ctx),
});

export const spec: CliSpec = {
  name: 'hermes-verify',
  summary: 'Check Hermes trajectories (a stream or a run directory) against the result checklist, passing them through unchanged.',
  commands: [verifyCommand],
  env: [['HERMES_API_KEY', 'when set, the secrets check also looks for this key (as OPENAI_API_KEY)']],
  epilog: `${CHECKS_HELP}\n\nExit 0 when no check failed (warnings allowed), 1 when one did.`,
};

export function main(): void {
  runMain(spec);
}
