// The run mode of hermes-generate (--run-name): every (row, sample) not yet done in the run directory
// runs through the agent; each result is appended to a batch file and fsynced before it counts as
// done and before it goes to stdout, so a kill at any moment loses at most the prompts in flight,
// which the next --resume runs again. A prompt without reasoning leaves a tombstone (it is done and
// never re-run, upstream #9950/#93527); a failed one goes to failures.jsonl and is re-run on resume.
//
// Stopping: on SIGINT/SIGTERM no new prompt starts, the running ones get --grace seconds to finish,
// then they are aborted unwritten. A quota that stays exhausted (rateLimiter.ts) stops the run the
// same way at once, with exit 4. At the end of every invocation, stopped or not, the checkpoint,
// failures.jsonl, trajectories.jsonl, statistics.json and run.json are brought up to date.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  addTombstone,
  addTrajectory,
  emptySummary,
  ExitCode,
  conversationReasoningStats,
  HermesError,
  redact,
  type CompleteRun,
  type Place,
  type PromptRow,
  type RunContext,
  type Secrets,
  type Tombstone,
  type Trajectory,
} from '@hermes-datagen/core';
import { renderReportText } from '@hermes-datagen/core';
import { runBounded } from '../boundedPool.js';
import { indexedPrompts, type PromptRunner } from '../generateStream.js';
import { failureExitCode } from '../failureKinds.js';
import { failureRecord, internalFailure, promptFailure, type PromptFailure } from '../promptFailure.js';
import { BatchAppender } from './batchAppender.js';
import { listBatchFiles } from './batchFiles.js';
import { delegateFor, type DelegationSettings } from './delegation.js';
import { CHECKPOINT_FILE, CheckpointState } from './checkpoint.js';
import { FailureLog } from './failureLog.js';
import { MANIFEST_FILE, writeManifest } from './manifest.js';
import { recordId, rowHash } from './recordId.js';
import { PendingWork } from './pendingWork.js';
import type { RunDirectory } from './runDirectory.js';
import { unchangedRunOutputs, writeRunOutputs, type FreshRecords } from './runOutputs.js';
import type { RateLimiter } from './rateLimiter.js';
import { inShard, type Shard } from './shard.js';
import { traceTags } from './trace.js';

export interface BatchRunOptions {
  readonly run: RunDirectory;
  readonly runName: string;
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
  readonly secret: Secrets;
  /** Least time between two checkpoint writes during the run. */
  readonly checkpointIntervalMs: number;
  /** Aborted (with the reason) when the quota stays exhausted: the run stops at once, resumably (exit 4). */
  readonly quotaExhausted?: AbortSignal | undefined;
  /** delegate_task: offered to prompts whose toolsets include `delegation`. */
  readonly delegation?: Omit<DelegationSettings, 'runPrompt'> | undefined;
  /** The run's rate limiter, for the progress line's count of 429s. */
  readonly limiter?: RateLimiter | undefined;
}

interface Job {
  readonly row: PromptRow;
  readonly promptIndex: number;
  readonly place: Place;
  readonly id: string;
  readonly sample: number;
  readonly rowHash: string;
  readonly batch: number;
  /** The row's line as read, kept in its failure record. */
  readonly raw: string;
}

/**
 * A finished prompt's records as they wait for their group commit: their lines and what is counted
 * of them, not the records themselves (kept through a commit's wait, hundreds of trajectories at a
 * time would outlive the young generation and cost the garbage collector more than the writing).
 */
interface RecordLines {
  /** The sub-agents' ids, then the root's. */
  readonly ids: readonly string[];
  /** The root left a tombstone: its line is the last, and does not go to stdout. */
  readonly discarded: boolean;
  readonly lines: readonly string[];
  /** api_calls of the record on each line. */
  readonly apiCalls: readonly number[];
  /** The lines joined, without the last newline. */
  readonly text: string;
  /** Bytes the append adds to the batch file. */
  readonly bytes: number;
}

/** Finished records waiting for their group commit at most (pendingWork.ts), in bytes. */
const WAITING_RECORD_BYTES = 64 * 1024 * 1024;

class PromptTimeout extends Error {
  public constructor(seconds: number) {
    super(`the prompt ran longer than --prompt-timeout ${seconds}s and was stopped; it runs again on --resume`);
    this.name = 'PromptTimeout';
  }
}

export async function runBatch(ctx: RunContext, options: BatchRunOptions): Promise<number> {
  const { run } = options;
  const started = Date.now();
  const out = await ctx.openOutput();
  const failures = new FailureLog(run.dir);
  await failures.load();
  const { dataset, endpoint } = run.manifest;
  // valid_rows is known once the input is read; the final write has it.
  const datasetFacts = { path: dataset.paths.join(' '), valid_rows: 0, ...(dataset.sha256 !== null ? { sha256: dataset.sha256 } : {}) };
  const checkpoint = new CheckpointState(
    join(run.dir, CHECKPOINT_FILE),
    { run_name: options.runName, endpoint, dataset: datasetFacts },
    options.checkpointIntervalMs,
  );
  checkpoint.restore(run.done, run.sizes, run.checkpoint);
  // Which (row, sample) pairs this invocation is about; known only for a dataset read from files (hashed).
  const selection: Omit<CompleteRun, 'records'> | undefined =
    dataset.sha256 === null
      ? undefined
      : {
          sha256: dataset.sha256,
          samples: options.samples,
          max_samples: options.maxSamples ?? null,
          shard: options.shard === undefined ? null : `${options.shard.index}/${options.shard.count}`,
        };
  // An earlier invocation did every pair of this very dataset and selection, and no batch file has
  // changed since: there is nothing to run, and a dataset of millions of rows is not parsed again.
  const doneBefore = checkpoint.complete;
  const nothingToRun = selection !== undefined && doneBefore !== undefined && sameSelection(doneBefore, selection);
  const batches = new Batches(run.dir, (run.files.at(-1)?.num ?? -1) + 1, options.batchSize);
  // This invocation's records, counted as they are written, so the merge at the end need not parse them
  // again (runOutputs.ts); given up (the merge reads everything) if a write failed or a key was redacted.
  const freshFiles = new Set<string>();
  const fresh: FreshRecords = { files: freshFiles, summary: emptySummary() };
  let freshExact = true;
  const tally = { written: 0, subAgents: 0, tombstones: 0, skipped: 0, interrupted: 0, records: 0 };
  const failedKinds = new Map<string, number>();
  const failedCount = (): number => [...failedKinds.values()].reduce((sum, n) => sum + n, 0);

  // Intake stops at once on a signal; the prompts' own signals only after the grace period.
  const intake = new AbortController();
  const stop = new AbortController();
  const running = new Set<AbortController>();
  stop.signal.addEventListener(
    'abort',
    () => {
      for (const prompt of running) prompt.abort(stop.signal.reason);
    },
    { once: true },
  );
  let grace: NodeJS.Timeout | undefined;
  const onSignal = (): void => {
    intake.abort(ctx.signal.reason);
    ctx.log.info(
      `stopping: no new prompt starts; ${running.size} running get ${options.graceMs / 1000}s to finish (a second signal exits at once; --resume continues)`,
    );
    grace = setTimeout(() => stop.abort(ctx.signal.reason), options.graceMs);
  };
  ctx.signal.addEventListener('abort', onSignal, { once: true });
  // The prompts waiting for the quota are stopped unwritten, not failed: they run again on --resume.
  const onQuota = (): void => {
    ctx.log.error(String(options.quotaExhausted?.reason));
    intake.abort(options.quotaExhausted?.reason);
    stop.abort(options.quotaExhausted?.reason);
  };
  options.quotaExhausted?.addEventListener('abort', onQuota, { once: true });
  // A record that cannot be written (a full disk) stops the intake, as a task that throws does.
  const writes = new PendingWork(WAITING_RECORD_BYTES, (error) => intake.abort(error));

  /** Set once intake has read the whole selection (not stopped on the way). */
  let selectionRead = false;

  /** Every (row, sample) not done yet; rows as stream mode reads them (a repeated row id is a bad line). */
  async function* jobs(): AsyncGenerator<Job> {
    let sequence = 0;
    try {
      if (nothingToRun) {
        ctx.log.info(`every (row, sample) of this dataset was done by an earlier invocation (${CHECKPOINT_FILE}): nothing to run, the rows are not read again`);
        datasetFacts.valid_rows = run.checkpoint?.dataset?.valid_rows ?? 0;
        tally.records = doneBefore.records;
        tally.skipped = doneBefore.records;
        selectionRead = true;
        return;
      }
      for await (const { row, promptIndex, place, raw, id: prompt } of indexedPrompts(ctx, stop)) {
        if (options.maxSamples !== undefined && promptIndex >= options.maxSamples) {
          selectionRead = true;
          return;
        }
        datasetFacts.valid_rows = promptIndex + 1;
        if (!inShard(prompt, options.shard)) continue;
        const hash = rowHash(row);
        for (let sample = 0; sample < options.samples; sample += 1) {
          tally.records += 1;
          const id = recordId(prompt, sample);
          const done = checkpoint.get(id);
          if (done) {
            tally.skipped += 1;
            if (done.row_hash !== undefined && done.row_hash !== hash) {
              ctx.log.warn(
                `the row of record ${id} changed since the record was written; the record is kept and the row not run again (use a new --run-name for the new dataset)`,
                place,
                'row-changed',
              );
            }
            continue;
          }
          yield { row, promptIndex, place, raw, id, sample, rowHash: hash, batch: batches.assign(sequence) };
          sequence += 1;
        }
      }
      selectionRead = true;
    } finally {
      batches.intakeEnded();
    }
  }

  // Each agent's requests carry its run, record and trace id (trace.ts).
  const traced: PromptRunner = (job) =>
    options.runPrompt({ ...job, requestTags: traceTags({ runName: options.runName, recordId: job.recordId ?? '', traceId: job.traceId ?? '' }) });

  ctx.progress.setDetail(() => {
    const done = tally.written - tally.subAgents + tally.tombstones + failedCount();
    const seconds = (Date.now() - started) / 1000;
    const left = tally.records - tally.skipped - done;
    const eta = done > 0 && left > 0 ? `, ETA ${Math.round((left * seconds) / done)}s` : '';
    return `${done}/${tally.records - tally.skipped} prompts done, ${running.size} running, ${options.limiter?.stats.rateLimited ?? 0} rate-limited${eta}`;
  });

  const runOne = async (job: Job): Promise<void> => {
    const prompt = new AbortController();
    running.add(prompt);
    const timer =
      options.promptTimeoutMs === undefined
        ? undefined
        : setTimeout(() => prompt.abort(new PromptTimeout(options.promptTimeoutMs! / 1000)), options.promptTimeoutMs);
    let trajectory: Trajectory | undefined;
    // Sub-agents' trajectories, written with their root's record (a root that fails leaves none).
    const subAgents: Trajectory[] = [];
    const traceId = randomUUID();
    const base = {
      row: job.row,
      promptIndex: job.promptIndex,
      place: job.place,
      batchNum: job.batch,
      runFields: { run_name: options.runName, sample: job.sample, row_hash: job.rowHash },
    };
    try {
      trajectory = await traced({
        ...base,
        signal: prompt.signal,
        recordId: job.id,
        traceId,
        ...(options.delegation
          ? { delegate: delegateFor({ id: job.id, traceId, depth: 0 }, base, { ...options.delegation, runPrompt: traced }, (record) => subAgents.push(record)) }
          : {}),
      });
    } catch (error) {
      if (stop.signal.aborted) tally.interrupted += 1;
      else await recordFailure(job, prompt.signal.reason instanceof PromptTimeout ? prompt.signal.reason : error);
    } finally {
      clearTimeout(timer);
      running.delete(prompt);
    }
    if (!trajectory) return batches.settle(job.batch);
    // The slot is free for the next prompt while the record waits for its group's fsync (batchAppender.ts).
    const lines = recordLines(job, trajectory, subAgents);
    await writes.add(
      write(job, lines).finally(() => batches.settle(job.batch)),
      lines.bytes,
    );
  };

  const recordFailure = async (job: Job, error: unknown): Promise<void> => {
    // Classed as doctor classes it (promptFailure.ts); anything else is a bug (exit 70), and the run goes on.
    const failure: PromptFailure =
      error instanceof PromptTimeout ? { kind: 'prompt-timeout', retryable: true, reason: error.message } : (promptFailure(error) ?? internalFailure(error));
    failedKinds.set(failure.kind, (failedKinds.get(failure.kind) ?? 0) + 1);
    ctx.stats.add('prompts_failed');
    const record = failureRecord({ id: job.id, promptIndex: job.promptIndex, place: job.place, sample: job.sample, raw: job.raw }, failure, options.secret);
    ctx.log.warn(`prompt ${job.id} failed, no record (it runs again on --resume): ${record.reason}`, job.place, 'prompt-failed');
    await failures.add(record);
    ctx.progress.tick(0);
  };

  /**
   * The root's record (or its tombstone) after its sub-agents', as the lines of one append, counted
   * in this invocation's statistics already (a failed append sets freshExact, and the merge then
   * counts the files instead). Sub-agents are never discarded: the root decides.
   */
  const recordLines = (job: Job, trajectory: Trajectory, subAgents: readonly Trajectory[]): RecordLines => {
    const records = [...subAgents, trajectory];
    // One pass over the reasoning tags decides the discard and feeds the statistics.
    const reasoning = conversationReasoningStats(trajectory.conversations);
    const discard = options.discardNoReasoning && !reasoning.has_any_reasoning;
    const stone = discard ? tombstone(job, trajectory) : undefined;
    const root: Trajectory | Tombstone = stone ?? trajectory;
    // Last line of defence: a key the agent read from a file (a copied .env) never reaches the output.
    const json = [...subAgents, root].map((record) => JSON.stringify(record));
    const lines = json.map((line) => redact(line, options.secret));
    if (lines.some((line, i) => line !== json[i])) freshExact = false;
    for (const sub of subAgents) addTrajectory(fresh.summary, sub);
    if (stone) addTombstone(fresh.summary, stone);
    else addTrajectory(fresh.summary, trajectory, reasoning);
    const text = lines.join('\n');
    return {
      ids: [...subAgents.map((sub) => sub.id ?? ''), job.id],
      discarded: discard,
      lines,
      apiCalls: records.map((record) => record.api_calls),
      text,
      bytes: Buffer.byteLength(text) + 1,
    };
  };

  /** One append of a record's lines; then its checkpoint entries and its lines on stdout. */
  const write = async (job: Job, { ids, discarded, lines, apiCalls, text, bytes }: RecordLines): Promise<void> => {
    const file = await batches.appender(job.batch);
    try {
      await file.append(text);
    } catch (error) {
      freshExact = false;
      throw error;
    }
    freshFiles.add(file.file.name);
    const entry = { prompt_index: job.promptIndex, shard: file.file.name, sample: job.sample, row_hash: job.rowHash };
    const subAgents = ids.length - 1;
    checkpoint.add(
      ids.map((id, i) => [
        id,
        i < subAgents || !discarded ? { ...entry, status: 'written' as const } : { ...entry, status: 'discarded' as const, reason: 'no_reasoning' },
      ]),
      file.file.name,
      bytes,
    );
    tally.written += subAgents;
    tally.subAgents += subAgents;
    if (discarded) {
      tally.tombstones += 1;
      ctx.stats.add('tombstones_written');
    } else {
      tally.written += 1;
    }
    const streamed = discarded ? lines.length - 1 : lines.length;
    for (let i = 0; i < streamed; i += 1) {
      ctx.stats.add('trajectories_out');
      ctx.stats.add('api_calls', apiCalls[i]!);
      await out.writeLine(lines[i]!);
    }
    await flushSoon();
    await checkpoint.maybeWrite();
    ctx.progress.tick(0);
  };

  // Each record goes out when it is done, not when the writer's buffer fills; the records of one
  // group commit come out of one fsync together and share one flush.
  let flushing: Promise<void> | undefined;
  const flushSoon = (): Promise<void> =>
    (flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      flushing = undefined;
      return out.flush();
    }));

  let code: number = ExitCode.internal;
  try {
    await runBounded(jobs(), options.concurrency, runOne, intake.signal);
    await writes.settled();
    code = exitCode();
  } catch (error) {
    code = error instanceof HermesError ? error.exitCode : ExitCode.internal;
    throw error;
  } finally {
    clearTimeout(grace);
    ctx.signal.removeEventListener('abort', onSignal);
    options.quotaExhausted?.removeEventListener('abort', onQuota);
    // Also after a failure: every finished record still gets written.
    await writes.settled().catch(() => undefined);
    await batches.closeAll();
    await finish(code);
  }
  return code;

  function exitCode(): number {
    if (options.quotaExhausted?.aborted) return ExitCode.retryable;
    if (ctx.signal.aborted) return ctx.signal.reason === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
    if (failedKinds.has('internal')) return ExitCode.internal;
    return failureExitCode(failedKinds.keys());
  }

  async function finish(exit: number): Promise<void> {
    const unresolved = await failures.settle((id) => checkpoint.get(id) !== undefined);
    const allDone = exit === ExitCode.ok && selectionRead && unresolved.length === 0 && tally.interrupted === 0 && ctx.stats.get('rejected_lines') === 0;
    if (selection !== undefined && allDone && !nothingToRun) checkpoint.markComplete({ ...selection, records: tally.records });
    await checkpoint.write();
    const files = await listBatchFiles(run.dir);
    const invocation = run.invocation;
    invocation.ended_at = new Date().toISOString();
    invocation.exit_code = exit;
    invocation.records_written = tally.written;
    invocation.tombstones_written = tally.tombstones;
    invocation.prompts_failed = failedCount();
    const unchanged = tally.written + tally.tombstones === 0 && !run.repaired && files.length === run.files.length;
    const merged =
      (unchanged ? await unchangedRunOutputs(run.dir, files, tally.records) : undefined) ??
      (await writeRunOutputs(
        run.dir,
        files,
        {
          run_name: options.runName,
          distribution: options.distribution,
          total_prompts: tally.records,
          batch_size: options.batchSize,
          model: options.model,
          duration_seconds: runDuration(run, started),
        },
        freshExact ? fresh : undefined,
      ));
    await writeManifest(join(run.dir, MANIFEST_FILE), run.manifest);
    const parts = [
      `${tally.written} trajectories (${tally.subAgents} of them by sub-agents) and ${tally.tombstones} tombstones written`,
      `${tally.skipped} already done`,
      ...(unresolved.length > 0 ? [`${unresolved.length} failed (listed in ${join(run.dir, 'failures.jsonl')}; --resume runs them again)`] : []),
      ...(tally.interrupted > 0 ? [`${tally.interrupted} stopped unwritten`] : []),
    ];
    ctx.io.stderr.write(renderReportText(merged.summary));
    const byClass = new Map<string, number>();
    for (const failure of unresolved) byClass.set(failure.error_class, (byClass.get(failure.error_class) ?? 0) + 1);
    if (byClass.size > 0) ctx.log.info(`failures by class: ${[...byClass].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
    ctx.log.info(
      `${parts.join(', ')}; the run now has ${merged.trajectories} trajectories and ${merged.tombstones} tombstones in ${files.length} batch files (${run.dir})`,
    );
  }
}

function sameSelection(a: CompleteRun, b: Omit<CompleteRun, 'records'>): boolean {
  return a.sha256 === b.sha256 && a.samples === b.samples && a.max_samples === b.max_samples && a.shard === b.shard;
}

/** upstream's tombstone (docs/record-format.md#tombstones) with our id; the trajectory is kept inside, nothing is lost. */
function tombstone(job: Job, trajectory: Trajectory): Tombstone {
  return {
    id: job.id,
    prompt_index: job.promptIndex,
    discarded: 'no_reasoning',
    prompt: job.row.prompt.trim(),
    metadata: { run_name: trajectory.metadata.run_name, sample: job.sample, row_hash: job.rowHash, trajectory },
  };
}

/** Seconds of every earlier invocation plus this one. */
function runDuration(run: RunDirectory, started: number): number {
  let seconds = (Date.now() - started) / 1000;
  for (const invocation of run.manifest.invocations) {
    if (invocation === run.invocation || invocation.ended_at === undefined) continue;
    seconds += (Date.parse(invocation.ended_at) - Date.parse(invocation.started_at)) / 1000;
  }
  return seconds;
}

/**
 * Batch numbers for this invocation's prompts, batch_size consecutive prompts a batch, after the
 * highest existing file. A batch's file is created with its first record and closed once its last
 * prompt is settled.
 */
class Batches {
  private readonly open = new Map<number, Promise<BatchAppender>>();
  private readonly pending = new Map<number, number>();
  private lastAssigned = -1;
  private ended = false;

  public constructor(
    private readonly dir: string,
    private readonly first: number,
    private readonly size: number,
  ) {}

  public assign(sequence: number): number {
    const batch = this.first + Math.floor(sequence / this.size);
    this.pending.set(batch, (this.pending.get(batch) ?? 0) + 1);
    this.lastAssigned = batch;
    return batch;
  }

  public appender(batch: number): Promise<BatchAppender> {
    let file = this.open.get(batch);
    if (!file) {
      file = BatchAppender.create(this.dir, batch);
      this.open.set(batch, file);
    }
    return file;
  }

  public intakeEnded(): void {
    this.ended = true;
  }

  public async settle(batch: number): Promise<void> {
    const left = (this.pending.get(batch) ?? 1) - 1;
    this.pending.set(batch, left);
    // The batch still being filled stays open for the prompts intake has not assigned yet.
    if (left > 0 || (batch === this.lastAssigned && !this.ended)) return;
    this.pending.delete(batch);
    const file = this.open.get(batch);
    this.open.delete(batch);
    await (await file)?.close();
  }

  public async closeAll(): Promise<void> {
    const files = [...this.open.values()];
    this.open.clear();
    for (const file of files) await (await file).close();
  }
}
