// Intake of pending work: every (row, sample) of the selection not done yet, as a job with its record
// id, row hash and batch number. Rows are read as stream mode reads them (a repeated row id is a bad
// line); a done pair is skipped, with a warning when its row changed since its record was written.
// Then the sub-agents that failed in an earlier invocation under a root whose record is written.
import { formatPlace, UsageError, type Place, type PromptRow, type RunContext } from '@hermes-datagen/core';
import { indexedPrompts } from '../generateStream.js';
import type { FailureRecord } from '../promptFailure.js';
import { CHECKPOINT_FILE } from './checkpoint.js';
import { rootId } from './failureLog.js';
import { recordId, rowHash } from './recordId.js';
import type { RunBatches } from './runBatches.js';
import type { RunBudget } from './runBudget.js';
import type { RunState, Selection } from './runState.js';
import type { RunTally } from './runTally.js';
import { inShard } from './shard.js';

export interface Job {
  readonly row: PromptRow;
  readonly promptIndex: number;
  readonly place: Place;
  readonly id: string;
  readonly sample: number;
  readonly rowHash: string;
  readonly batch: number;
  /** The row's line as read, kept in its failure record (a sub-agent's: its task). */
  readonly raw: string;
  /** A sub-agent that failed in an earlier invocation, run again on its own (its root's record is written). */
  readonly subAgent?: SubAgentRetry | undefined;
}

export interface SubAgentRetry {
  readonly parentId: string;
  readonly depth: number;
  readonly toolsets: readonly string[];
}

/** The job of a failed sub-agent as its failure line recorded it; undefined for a line of an older version without its task. */
function retryJob(failure: FailureRecord, rowHash: string): Omit<Job, 'batch'> | undefined {
  let task: { prompt?: unknown; toolsets?: unknown };
  try {
    task = JSON.parse(failure.raw ?? '') as typeof task;
  } catch {
    return undefined;
  }
  if (typeof task.prompt !== 'string' || !Array.isArray(task.toolsets) || failure.parent_id === undefined) return undefined;
  return {
    row: { prompt: task.prompt },
    promptIndex: failure.prompt_index,
    place: { source: failure.source, line: failure.line },
    id: failure.id,
    sample: failure.sample ?? 0,
    rowHash,
    raw: failure.raw ?? '',
    subAgent: { parentId: failure.parent_id, depth: failure.depth ?? 1, toolsets: task.toolsets as string[] },
  };
}

export class RunIntake {
  /** Set once the whole selection was read (not stopped on the way). */
  public selectionRead = false;
  /** Why intake stopped at the run's budget (--max-cost / --max-tokens), if it did. */
  public budgetReached: string | undefined;

  public constructor(
    private readonly ctx: RunContext,
    private readonly state: RunState,
    private readonly selected: Selection,
    private readonly batches: RunBatches,
    private readonly tally: RunTally,
    /** The valid rows read so far are given in the previous invocation's checkpoint when nothing is read. */
    private readonly validRowsBefore: number,
    /** --force-resume: a changed row is warned about, not refused. */
    private readonly forceResume = false,
    /** Checked before each new prompt starts. */
    private readonly budget?: RunBudget | undefined,
  ) {}

  /** The jobs; when reading fails (a bad line), `onFailure` is told the prompts read, then the error is thrown. */
  public async *jobs(onFailure: (promptsRead: number) => void): AsyncGenerator<Job> {
    const { ctx, state, selected, tally, batches } = this;
    let sequence = 0;
    // Rows with derived ids (position and text) carry no id of their own: a changed row at a position
    // that has records gets a new id and would run as a new record beside the old ones. Each position's
    // row hash tells it, for stdin as for files (whose changes run.json's SHA-256 refuses at once).
    const hashAt = state.checkpoint.size === 0 ? undefined : state.checkpoint.rowHashesByIndex();
    try {
      const { doneBefore } = state;
      if (doneBefore !== undefined) {
        ctx.log.info(`every (row, sample) of this dataset was done by an earlier invocation (${CHECKPOINT_FILE}): nothing to run, the rows are not read again`);
        state.datasetFacts.valid_rows = this.validRowsBefore;
        tally.records = doneBefore.records;
        tally.skipped = doneBefore.records;
        this.selectionRead = true;
        return;
      }
      for await (const { row, promptIndex, place, raw, id: prompt } of indexedPrompts(ctx, onFailure)) {
        if (selected.maxSamples !== undefined && promptIndex >= selected.maxSamples) {
          this.selectionRead = true;
          return;
        }
        state.datasetFacts.valid_rows = promptIndex + 1;
        if (!inShard(prompt, selected.shard)) continue;
        const hash = rowHash(row);
        const before = row.id === undefined ? hashAt?.get(promptIndex) : undefined;
        if (before !== undefined && before !== hash) this.rowChanged(place, promptIndex);
        for (let sample = 0; sample < selected.samples; sample += 1) {
          tally.records += 1;
          const id = recordId(prompt, sample);
          const done = state.checkpoint.get(id);
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
          this.budgetReached = this.budget?.reached();
          if (this.budgetReached !== undefined) {
            ctx.log.warn(this.budgetReached, undefined, 'budget-reached');
            return;
          }
          yield { row, promptIndex, place, raw, id, sample, rowHash: hash, batch: batches.assign(sequence) };
          sequence += 1;
        }
      }
      this.selectionRead = true;
      // The sub-agents that failed under a written root run again on their own, after the rows.
      for (const failure of state.failures.subAgentsToRun((id) => state.checkpoint.get(id) !== undefined)) {
        const job = retryJob(failure, state.checkpoint.get(rootId(failure.id))?.row_hash ?? '');
        if (job === undefined) continue;
        tally.records += 1;
        yield { ...job, batch: batches.assign(sequence) };
        sequence += 1;
      }
    } finally {
      batches.intakeEnded();
    }
  }

  /** A row without an id differs from the row its position's records were made from: refused, or with --force-resume said and run as a new row. */
  private rowChanged(place: Place, promptIndex: number): void {
    const what = `the row at ${formatPlace(place)} (prompt ${promptIndex}, no id of its own) differs from the row this run's records at that position were made from`;
    if (!this.forceResume) {
      throw new UsageError(
        `--resume refused: ${what}: the dataset changed since (the records of a row are keyed by its position and text). Resume with the data the run started with, give the rows ids, or add --force-resume to run the changed rows as new ones`,
      );
    }
    this.ctx.log.warn(`--force-resume: ${what}; it runs as a new row, the records of the old one are kept`, place, 'row-changed');
  }
}
