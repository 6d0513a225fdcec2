// The run mode of hermes-generate (--run-name): every (row, sample) not yet done in the run directory
// runs through the agent; each result is appended to a batch file and fsynced before it counts as
// done and before it goes to stdout, so a kill at any moment loses at most the prompts in flight,
// which the next --resume runs again. A prompt without reasoning leaves a tombstone (it is done and
// never re-run, upstream #9950/#93527); a failed one goes to failures.jsonl and is re-run on resume.
//
// The stages, each in its module: the state the run starts from (runState.ts), intake of pending
// work (runIntake.ts), running prompts (promptRuns.ts), writing and committing records
// (recordCommits.ts, into runBatches.ts's files), stopping (runStops.ts: on SIGINT/SIGTERM no new
// prompt starts, the running ones get --grace seconds; when the rate limiter gives up no new prompt
// starts and the running ones fail as rate-limited, exit 4), the tallies (runTally.ts), and finishing (runFinish.ts: at the end of every invocation,
// stopped or not, the checkpoint, failures.jsonl, trajectories.jsonl, statistics.json and run.json
// are brought up to date).
import { ExitCode, HermesError, outputFailure, type ApiKey, type RunContext } from '@hermes-datagen/core';
import type { RateLimiter } from '@hermes-datagen/core/endpoint';
import { runBounded } from '../boundedPool.js';
import type { PromptRunner } from '../generateStream.js';
import type { DelegationSettings } from './delegation.js';
import { CallJournal } from './callJournal.js';
import { promptRuns } from './promptRuns.js';
import { RecordCommits } from './recordCommits.js';
import { RunBatches } from './runBatches.js';
import type { RunDirectory } from './runDirectory.js';
import { finishRun } from './runFinish.js';
import type { RunBudget } from './runBudget.js';
import { RunIntake } from './runIntake.js';
import { openRunState } from './runState.js';
import { RunStops } from './runStops.js';
import { RunTally } from './runTally.js';
import type { Shard } from './shard.js';

export interface BatchRunOptions {
  readonly run: RunDirectory;
  readonly runName: string;
  /** --force-resume: rows that changed since the run's records were made are warned about, not refused. */
  readonly forceResume?: boolean | undefined;
  readonly samples: number;
  /** Only the first N valid rows of the dataset. */
  readonly maxSamples?: number | undefined;
  readonly shard?: Shard | undefined;
  readonly batchSize: number;
  readonly concurrency: number;
  /** Wall-clock budget of one prompt; over it the prompt fails (and runs again on resume). */
  readonly promptTimeoutMs?: number | undefined;
  /** How long running prompts may take to finish after a stop signal. */
  readonly graceMs: number;
  readonly discardNoReasoning: boolean;
  readonly distribution: string;
  readonly model: string;
  readonly runPrompt: PromptRunner;
  readonly secret: ApiKey;
  /** Least time between two checkpoint writes during the run. */
  readonly checkpointIntervalMs: number;
  /** Aborted (with the reason) when the rate limiter gives up: no new prompt starts, and the run ends resumably (exit 4). */
  readonly quotaExhausted?: AbortSignal | undefined;
  /** delegate_task: offered to prompts whose toolsets include `delegation`. */
  readonly delegation?: Omit<DelegationSettings, 'runPrompt'> | undefined;
  /** The run's rate limiter, for the progress line's count of 429s. */
  readonly limiter?: RateLimiter | undefined;
  /** --no-replay: a --resume asks for every call again instead of replaying the call journal. */
  readonly replay: boolean;
  /** --no-journal: no call journal is kept (nor replayed). */
  readonly journal: boolean;
  /** --max-cost / --max-tokens, with what the run spent before; also fed by every call (agentCalls.ts). */
  readonly budget?: RunBudget | undefined;
  /** Records are priced: the progress line shows the dollars. */
  readonly priced?: boolean | undefined;
  /** More for the progress line (--batch-api: its rounds and batches). */
  readonly progressDetail?: (() => string) | undefined;
  /** Told of each committed record (--batch-api: the ledger forgets its attempts). */
  readonly onCommitted?: ((id: string) => void) | undefined;
}

export async function runBatch(ctx: RunContext, options: BatchRunOptions): Promise<number> {
  const { run } = options;
  const started = Date.now();
  const out = await ctx.openOutput();
  const state = await openRunState(run, options.runName, options, options.checkpointIntervalMs);
  const journal = options.journal
    ? await CallJournal.open(run.dir, (id) => state.checkpoint.get(id) !== undefined, { replay: options.replay, secret: options.secret, log: ctx.log })
    : undefined;
  if (journal !== undefined && journal.replayable > 0)
    ctx.log.info(`call journal: ${journal.replayable} replies of unfinished prompts can be replayed instead of bought again`);
  const tally = new RunTally();
  const batches = new RunBatches(run.dir, (run.files.at(-1)?.num ?? -1) + 1, options.batchSize);
  const intake = new RunIntake(ctx, state, options, batches, tally, run.checkpoint?.dataset?.valid_rows ?? 0, options.forceResume, options.budget);
  const stops = new RunStops(ctx.signal, ctx.log, options.graceMs, options.quotaExhausted);
  // A record that cannot be written (a full disk) stops the intake, as a task that throws does.
  const commits = new RecordCommits(
    ctx,
    out,
    state.checkpoint,
    batches,
    tally,
    { ...options, journal },
    (error) => stops.intake.abort(error),
    () => {
      ctx.log.error(
        `stdout was closed by its reader (a | head?) after ${ctx.stats.get('trajectories_out')} records: no new prompt starts, the ones running are written to ${run.dir} only; the run ends resumably (exit ${ExitCode.retryable}), --resume continues`,
      );
      stops.intake.abort('stdout closed');
    },
  );
  const runOne = promptRuns({ ...options, journal }, { ctx, stops, tally, failures: state.failures, commits });
  const { budget } = options;
  ctx.progress.setDetail(() => {
    const line = tally.progress(stops.runningCount, options.limiter?.stats, (Date.now() - started) / 1000);
    const spent = budget === undefined ? '' : budget.progress(tally.skipped + tally.done, tally.records, options.priced === true);
    return `${line}${spent}${options.progressDetail?.() ?? ''}`;
  });

  let code: number = ExitCode.internal;
  // The first failure is the one reported: a full disk met by a batch file is met again by the
  // checkpoint and merge after it, and the file it names is where the run stopped.
  let failure: { readonly error: unknown } | undefined;
  const attempt = async (step: () => Promise<unknown>): Promise<void> => {
    try {
      await step();
    } catch (error) {
      failure ??= { error: runFailure(error, run.dir) };
    }
  };
  await attempt(async () => {
    await runBounded(
      intake.jobs((read) => stops.inputFailed(read)),
      options.concurrency,
      runOne,
      stops.intake.signal,
    );
    await commits.settled();
    code = stops.code() ?? (commits.stdoutClosed ? ExitCode.retryable : intake.budgetReached !== undefined ? ExitCode.budgetReached : tally.failureCode());
  });
  if (failure !== undefined) code = failure.error instanceof HermesError ? failure.error.exitCode : ExitCode.internal;
  stops.dispose();
  // Also after a failure: every finished record still gets written, and what the run holds is brought up to date as far as the disk lets it.
  await commits.settled().catch(() => undefined);
  await attempt(() => batches.closeAll());
  await attempt(async () => journal?.close());
  await attempt(() =>
    finishRun(ctx, run, state, tally, commits, {
      runName: options.runName,
      distribution: options.distribution,
      model: options.model,
      batchSize: options.batchSize,
      started,
      exitCode: code,
      selectionRead: intake.selectionRead,
    }),
  );
  if (failure !== undefined) throw failure.error;
  return code;
}

/**
 * A write of the run directory that failed for want of space (or quota, an I/O error, a read-only
 * file system) is an output failure (exit 74) naming its file, which says that what was written
 * before it stays and a resume finishes the run; any other error as it is.
 */
function runFailure(error: unknown, dir: string): unknown {
  const failed =
    error instanceof HermesError
      ? error.exitCode === ExitCode.output
        ? error
        : undefined
      : outputFailure(error, (error as NodeJS.ErrnoException).path ?? dir);
  if (failed === undefined) return error;
  return new HermesError(`${failed.message}; every record written before it is kept in ${dir}: make room, then --resume finishes the run`, ExitCode.output);
}
