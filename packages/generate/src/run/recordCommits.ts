// Writing and committing records: a finished prompt's records (its sub-agents', then its own or its
// tombstone) are appended to its batch file as one write and fsynced with the group that finishes
// with it (batchAppender.ts); only then do they count as done in the checkpoint and go to stdout.
// The prompt's slot is free for the next prompt meanwhile: the records waiting for their fsync are
// bounded in bytes (pendingWork.ts), and a write that fails (a full disk) stops the intake.
import {
  BrokenPipe,
  addTombstone,
  addTrajectory,
  conversationReasoningStats,
  emptySummary,
  redact,
  type ApiKey,
  type JsonlWriter,
  type RunContext,
  type Tombstone,
  type Trajectory,
} from '@hermes-datagen/core';
import type { CallJournal } from './callJournal.js';
import type { CheckpointState } from './checkpoint.js';
import { PendingWork } from './pendingWork.js';
import type { RunBatches } from './runBatches.js';
import type { Job } from './runIntake.js';
import type { FreshRecords } from './runOutputs.js';
import type { RunTally } from './runTally.js';

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

export interface CommitOptions {
  readonly discardNoReasoning: boolean;
  readonly secret: ApiKey;
  /** A committed record's journaled replies are needed no more. */
  readonly journal?: CallJournal | undefined;
  /** Told of each committed record (--batch-api: its attempts are forgotten). */
  readonly onCommitted?: ((id: string) => void) | undefined;
}

export class RecordCommits {
  /**
   * This invocation's records, counted as they are written, so the merge at the end need not parse
   * them again (runOutputs.ts); given up (`exact` false: the merge reads everything) if a write
   * failed or a key was redacted.
   */
  public readonly fresh: FreshRecords;
  private readonly freshFiles = new Set<string>();
  public exact = true;
  /** stdout's reader went away: records go to the run directory only. */
  public stdoutClosed = false;
  private readonly writes: PendingWork;
  // Each record goes out when it is done, not when the writer's buffer fills; the records of one
  // group commit come out of one fsync together and share one flush.
  private flushing: Promise<void> | undefined;

  public constructor(
    private readonly ctx: RunContext,
    private readonly out: JsonlWriter,
    private readonly checkpoint: CheckpointState,
    private readonly batches: RunBatches,
    private readonly tally: RunTally,
    private readonly options: CommitOptions,
    onFailure: (error: unknown) => void,
    private readonly onStdoutClosed: () => void = () => undefined,
  ) {
    this.writes = new PendingWork(WAITING_RECORD_BYTES, onFailure);
    this.fresh = { files: this.freshFiles, summary: emptySummary() };
  }

  /** The prompt of `job` ended without a record (failed or stopped): its batch may close. */
  public skip(job: Job): Promise<void> {
    return this.batches.settle(job.batch);
  }

  /** Resolves once the records are queued for their commit (at once, unless too many bytes wait). */
  public commit(job: Job, trajectory: Trajectory, subAgents: readonly Trajectory[]): Promise<void> {
    const lines = this.recordLines(job, trajectory, subAgents);
    return this.writes.add(
      this.write(job, lines).finally(() => this.batches.settle(job.batch)),
      lines.bytes,
    );
  }

  /** Resolves once every queued record is committed; rejects with the first failed write. */
  public settled(): Promise<void> {
    return this.writes.settled();
  }

  /**
   * The root's record (or its tombstone) after its sub-agents', as the lines of one append, counted
   * in this invocation's statistics already (a failed append clears `exact`, and the merge then
   * counts the files instead). Sub-agents are never discarded: the root decides.
   */
  private recordLines(job: Job, trajectory: Trajectory, subAgents: readonly Trajectory[]): RecordLines {
    const records = [...subAgents, trajectory];
    // One pass over the reasoning tags decides the discard and feeds the statistics.
    const reasoning = conversationReasoningStats(trajectory.conversations);
    // A sub-agent run again on its own is never discarded either.
    const discard = this.options.discardNoReasoning && job.subAgent === undefined && !reasoning.has_any_reasoning;
    const stone = discard ? tombstone(job, trajectory) : undefined;
    const root: Trajectory | Tombstone = stone ?? trajectory;
    // Last line of defence: a key the agent read from a file (a copied .env) never reaches the output.
    const json = [...subAgents, root].map((record) => JSON.stringify(record));
    const lines = json.map((line) => redact(line, this.options.secret));
    if (lines.some((line, i) => line !== json[i])) this.exact = false;
    const { summary } = this.fresh;
    for (const sub of subAgents) addTrajectory(summary, sub);
    if (stone) addTombstone(summary, stone);
    else addTrajectory(summary, trajectory, reasoning);
    const text = lines.join('\n');
    return {
      ids: [...subAgents.map((sub) => sub.id ?? ''), job.id],
      discarded: discard,
      lines,
      apiCalls: records.map((record) => record.api_calls),
      text,
      bytes: Buffer.byteLength(text) + 1,
    };
  }

  /** One append of a record's lines; then its checkpoint entries and its lines on stdout. */
  private async write(job: Job, { ids, discarded, lines, apiCalls, text, bytes }: RecordLines): Promise<void> {
    const { ctx, tally } = this;
    const file = await this.batches.appender(job.batch);
    try {
      await file.append(text);
    } catch (error) {
      this.exact = false;
      throw error;
    }
    this.freshFiles.add(file.file.name);
    const entry = { prompt_index: job.promptIndex, shard: file.file.name, sample: job.sample, row_hash: job.rowHash };
    const subAgents = ids.length - 1;
    this.checkpoint.add(
      ids.map((id, i) => [
        id,
        i < subAgents || !discarded ? { ...entry, status: 'written' as const } : { ...entry, status: 'discarded' as const, reason: 'no_reasoning' },
      ]),
      file.file.name,
      bytes,
    );
    for (const id of ids) {
      this.options.journal?.committed(id);
      this.options.onCommitted?.(id);
    }
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
    }
    if (!this.stdoutClosed) await this.stream(lines, streamed);
    await this.checkpoint.maybeWrite();
    ctx.progress.tick(0);
  }

  /**
   * The record's lines on stdout. A reader that went away (`| head`) ends the run resumably: the
   * records already committed are in the run directory whatever stdout took, the ones still to
   * come are committed there too, and no new prompt starts (onStdoutClosed).
   */
  private async stream(lines: readonly string[], count: number): Promise<void> {
    try {
      for (let i = 0; i < count; i += 1) await this.out.writeLine(lines[i]!);
      await this.flushSoon();
    } catch (error) {
      if (!(error instanceof BrokenPipe)) throw error;
      if (this.stdoutClosed) return;
      this.stdoutClosed = true;
      this.onStdoutClosed();
    }
  }

  private flushSoon(): Promise<void> {
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.flushing = undefined;
      return this.out.flush();
    });
    return this.flushing;
  }
}

/** upstream's tombstone (docs/record-format.md#tombstones) with our id; the trajectory is kept inside, nothing is lost. */
export function tombstone(job: Job, trajectory: Trajectory): Tombstone {
  return {
    id: job.id,
    prompt_index: job.promptIndex,
    discarded: 'no_reasoning',
    prompt: job.row.prompt.trim(),
    metadata: { run_name: trajectory.metadata.run_name, sample: job.sample, row_hash: job.rowHash, trajectory },
  };
}
