// The flags of run mode (--run-name and what goes with it), declared once for --help, and the step
// from parsed flags to an open run directory. Upstream's snake_case spellings are aliases, so
// upstream batch_runner commands work unchanged.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, type Argv, type RunContext, type ToolRegistry } from '@hermes-datagen/core';
import { DEFAULT_QUOTA_WAIT_S } from '@hermes-datagen/core/endpoint';
import type { DatasetIdentity, EndpointIdentity } from './manifest.js';
import { datasetHash } from './manifest.js';
import { openRunDirectory, type RunDirectory } from './runDirectory.js';
import type { BudgetLimits } from './runBudget.js';
import { parseShard, type Shard } from './shard.js';

const RUN = 'Run directory (--run-name):';
const RATE = 'Rate limits (with --run-name; one limiter for every agent of the process, finding the quota by itself):';
const COST = 'Cost (docs/cost.md):';

export interface RunArgs {
  runName?: string | undefined;
  /** -c: in run mode, the prompts at once instead of num-workers x batch-size. */
  concurrency?: number | undefined;
  outputRoot: string;
  resume: boolean;
  forceResume: boolean;
  samples: number;
  maxSamples?: number | undefined;
  batchSize: number;
  numWorkers: number;
  maxConcurrency?: number | undefined;
  shard?: string | undefined;
  promptTimeout?: number | undefined;
  grace: number;
  discardNoReasoning: boolean;
  rpm?: number | undefined;
  tpm?: number | undefined;
  quotaWait: number;
  maxDepth: number;
  replay: boolean;
  journal: boolean;
  maxCost?: number | undefined;
  maxTokens?: number | undefined;
}

export function runOptions<T>(y: Argv<T>) {
  return y
    .option('run-name', {
      alias: 'run_name',
      type: 'string',
      describe: 'write the run to <output-root>/<run-name>/ (batch files, checkpoint, statistics, manifest), resumable; records still go to stdout',
      group: RUN,
    })
    .option('output-root', { alias: 'output_root', type: 'string', default: 'data', describe: 'directory that holds run directories', group: RUN })
    .option('resume', {
      type: 'boolean',
      default: false,
      describe: 'continue the run: skip every (row, sample) already written or discarded, run failed and unfinished ones again',
      group: RUN,
    })
    .option('force-resume', {
      alias: 'force_resume',
      type: 'boolean',
      default: false,
      describe: "resume even though the dataset, model, endpoint or key differ from the run's manifest",
      group: RUN,
    })
    .option('samples', {
      type: 'number',
      default: 1,
      describe: 'trajectories per prompt; the record id says which (the row id, then <id>#s1, <id>#s2...)',
      group: RUN,
    })
    .option('max-samples', { alias: 'max_samples', type: 'number', describe: 'run only the first N valid rows of the dataset', group: RUN })
    .option('batch-size', {
      alias: 'batch_size',
      type: 'number',
      default: 10,
      describe: 'prompts per batch file; with --num-workers sets how many prompts run at once',
      group: RUN,
    })
    .option('num-workers', {
      alias: 'num_workers',
      type: 'number',
      default: 4,
      describe: 'workers; num-workers x batch-size prompts run at once (4 x 10 = 40) unless -c says how many',
      group: RUN,
    })
    .option('max-concurrency', {
      alias: 'max_concurrency',
      type: 'number',
      describe: 'cap on the prompts run at once, whatever num-workers x batch-size',
      group: RUN,
    })
    .option('shard', {
      type: 'string',
      describe: 'i/N: run only the rows whose id hashes to shard i of N (N machines, one command each, no coordination)',
      group: RUN,
    })
    .option('prompt-timeout', {
      alias: 'prompt_timeout',
      type: 'number',
      describe:
        "seconds of one prompt's own work: its HTTP attempts, its tools (its sub-agents' too) and the time between, but not its waits for the rate limiter (a slot, a backoff, a Retry-After, a pause); over it the prompt fails and runs again on --resume",
      group: RUN,
    })
    .option('grace', {
      type: 'number',
      default: 30,
      describe:
        'seconds running prompts get to finish after SIGINT/SIGTERM (run mode; then they are stopped unwritten), or after the input stopped at a bad line (both modes; then they are listed as failures)',
      group: RUN,
    })
    .option('rpm', {
      type: 'number',
      describe: 'hard cap: model requests a minute at most (starts spaced 60/rpm s apart), retries included; below it the limiter finds the quota itself',
      group: RATE,
    })
    .option('tpm', {
      type: 'number',
      describe: 'tokens a minute at most: each request is charged an estimate before and its reported usage after',
      group: RATE,
    })
    .option('quota-wait', {
      alias: 'quota_wait',
      type: 'number',
      default: DEFAULT_QUOTA_WAIT_S,
      describe:
        'seconds the run may go without one successful model call while its calls are refused as rate-limited (or a Retry-After asks for longer); then the running prompts fail as rate-limited and the run ends resumably with exit 4. Rate-limited calls wait until then, never failing',
      group: RATE,
    })
    .option('max-depth', {
      alias: 'max_depth',
      type: 'number',
      default: 1,
      describe: "delegate_task (toolset delegation): how deep sub-agents may go; 1 lets the prompt's agent delegate and its sub-agents not",
      group: RUN,
    })
    .option('replay', {
      type: 'boolean',
      default: true,
      describe:
        "on --resume, a prompt that had started replays the model replies the run's call journal holds for it, while its requests match them (--no-replay asks for every call again)",
      group: RUN,
    })
    .option('journal', {
      type: 'boolean',
      default: true,
      describe:
        'keep the call journal (<run>/journal/: the replies of running prompts, for --resume); --no-journal keeps none, and a resumed prompt starts again from its first call',
      group: RUN,
    })
    .option('max-cost', {
      alias: 'max_cost',
      type: 'number',
      describe:
        "USD the whole run may spend, across resumes (needs --prices or a gateway's usage.cost): once reached no new prompt starts, running ones finish, exit 5",
      group: COST,
    })
    .option('max-tokens', {
      alias: 'max_tokens',
      type: 'number',
      describe: 'prompt + completion tokens the whole run may use, across resumes: once reached no new prompt starts, running ones finish, exit 5',
      group: COST,
    })
    .option('discard-no-reasoning', {
      type: 'boolean',
      default: true,
      describe:
        'a trajectory without any reasoning becomes a tombstone (done, not re-run, left out of trajectories.jsonl; the trajectory is kept inside it), as upstream',
      group: RUN,
    });
}

export interface RunSettings {
  readonly samples: number;
  readonly maxSamples?: number | undefined;
  readonly batchSize: number;
  readonly concurrency: number;
  readonly shard?: Shard | undefined;
  readonly promptTimeoutMs?: number | undefined;
  readonly graceMs: number;
  readonly rpm?: number | undefined;
  readonly tpm?: number | undefined;
  readonly quotaWaitMs: number;
  readonly replay: boolean;
  readonly journal: boolean;
  readonly budgetLimits: BudgetLimits;
}

/** The settings of run mode; without --run-name, a flag that only run mode reads is a usage error, never ignored. */
export function runSettings(args: RunArgs): RunSettings | undefined {
  // Both modes: the time running prompts get after a bad input line.
  seconds(args.grace, '--grace', true);
  if (args.runName === undefined) {
    const given = (
      [
        ['--resume', args.resume],
        ['--force-resume', args.forceResume],
        ['--shard', args.shard !== undefined],
        ['--samples', args.samples !== 1],
        ['--max-samples', args.maxSamples !== undefined],
        ['--prompt-timeout', args.promptTimeout !== undefined],
        ['--rpm', args.rpm !== undefined],
        ['--tpm', args.tpm !== undefined],
        ['--no-replay', !args.replay],
        ['--no-journal', !args.journal],
        ['--max-cost', args.maxCost !== undefined],
        ['--max-tokens', args.maxTokens !== undefined],
      ] as const
    )
      .filter(([, set]) => set)
      .map(([flag]) => flag);
    if (given.length > 0) throw new UsageError(`${given.join(', ')} ${given.length === 1 ? 'works' : 'work'} with --run-name only: add --run-name NAME`);
    return undefined;
  }
  wholeNumber(args.samples, '--samples', 1);
  wholeNumber(args.batchSize, '--batch-size', 1);
  wholeNumber(args.numWorkers, '--num-workers', 1);
  if (args.maxSamples !== undefined) wholeNumber(args.maxSamples, '--max-samples', 0);
  if (args.maxConcurrency !== undefined) wholeNumber(args.maxConcurrency, '--max-concurrency', 1);
  if (args.promptTimeout !== undefined) seconds(args.promptTimeout, '--prompt-timeout', false);
  seconds(args.quotaWait, '--quota-wait', true);
  wholeNumber(args.maxDepth, '--max-depth', 0);
  for (const [value, flag] of [
    [args.rpm, '--rpm'],
    [args.tpm, '--tpm'],
    [args.maxCost, '--max-cost'],
    [args.maxTokens, '--max-tokens'],
  ] as const) {
    if (value !== undefined && !(value > 0 && Number.isFinite(value))) throw new UsageError(`${flag} must be a number above 0, got ${String(value)}`);
  }
  return {
    samples: args.samples,
    maxSamples: args.maxSamples,
    batchSize: args.batchSize,
    concurrency: Math.min(args.concurrency ?? args.numWorkers * args.batchSize, args.maxConcurrency ?? Infinity),
    shard: args.shard === undefined ? undefined : parseShard(args.shard),
    promptTimeoutMs: args.promptTimeout === undefined ? undefined : args.promptTimeout * 1000,
    graceMs: args.grace * 1000,
    rpm: args.rpm,
    tpm: args.tpm,
    quotaWaitMs: args.quotaWait * 1000,
    replay: args.replay,
    journal: args.journal,
    budgetLimits: { maxCostUsd: args.maxCost, maxTokens: args.maxTokens },
  };
}

export interface RunIdentity {
  readonly files: readonly string[];
  readonly endpoint: EndpointIdentity;
  readonly registry: ToolRegistry;
  readonly seed?: number | undefined;
  /** The flags, for the manifest. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The workspace root the invocation made for itself, if it did (no --workspace-root). */
  readonly workspaceRoot?: string | undefined;
}

export async function openRun(args: RunArgs & { runName: string }, ctx: RunContext, identity: RunIdentity): Promise<RunDirectory> {
  const { cwd } = ctx.io;
  const dataset: DatasetIdentity = {
    paths: identity.files.length === 0 ? ['-'] : [...identity.files],
    sha256: await datasetHash(identity.files, (path) => resolve(cwd, path)),
  };
  return openRunDirectory(
    {
      outputRoot: resolve(cwd, args.outputRoot),
      runName: args.runName,
      resume: args.resume,
      forceResume: args.forceResume,
      dataset,
      endpoint: identity.endpoint,
      toolRegistrySha256: createHash('sha256').update(readFileSync(identity.registry.source)).digest('hex'),
      shard: args.shard === undefined ? null : args.shard.trim(),
      seed: identity.seed,
      settings: identity.settings,
      workspaceRoot: identity.workspaceRoot,
    },
    ctx.log,
  );
}

/** The flags as given, in camelCase, without yargs' own keys: what the manifest records. */
export function recordedFlags(args: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).filter(([key, value]) => key !== '_' && key !== '$0' && !key.includes('-') && !key.includes('_') && value !== undefined),
  );
}

function wholeNumber(value: number, flag: string, least: number): void {
  if (!Number.isInteger(value) || value < least) throw new UsageError(`${flag} must be a whole number from ${least} up, got ${String(value)}`);
}

function seconds(value: number, flag: string, zeroAllowed: boolean): void {
  if (!(zeroAllowed ? value >= 0 : value > 0) || !Number.isFinite(value)) {
    throw new UsageError(`${flag} must be a number of seconds ${zeroAllowed ? 'from 0' : 'above 0'} up, got ${String(value)}`);
  }
}
