// checkpoint.json (schemas/checkpoint.schema.json): record id -> what became of it, and each batch
// file's size when all its lines had their entries, written atomically. The batch files are the
// truth (a record is done once its line is fsynced there): a resume takes a file's records from the
// checkpoint only when the file has exactly the size recorded (runDirectory.ts), and reads the others
// back. It is written at most once per interval during a run and once at its end (not at all when
// nothing changed), so a run of a million prompts does not rewrite a growing file after every record;
// and the interval grows with the time a write takes, so that rewriting the whole file stays a small
// share of the run however large it grows (a checkpoint that lags only makes a resume read back more).
import { writeJsonAtomic, type Checkpoint, type CheckpointEntry, type CompleteRun } from '@hermes-datagen/core';

export const CHECKPOINT_FILE = 'checkpoint.json';

/**
 * A write during the run waits at least this many times as long as the last write took: rewriting
 * the checkpoint then costs at most 1% of the run (a resume after a kill reads back the files written since).
 */
const WRITE_SPACING = 100;

type Head = Pick<Checkpoint, 'run_name' | 'dataset' | 'endpoint'>;

export class CheckpointState {
  private done = new Map<string, CheckpointEntry>();
  private files = new Map<string, number>();
  /** Set by markComplete(), or as restored; any change to what is done clears it. */
  private completeRun: CompleteRun | undefined;
  /** When maybeWrite() may write next. */
  private nextWrite = 0;
  private writing: Promise<void> | undefined;
  /** Calls of add() so far. */
  private changes = 0;
  /** What checkpoint.json holds: the state after that many changes, with that head. */
  private stored: { readonly changes: number; readonly head: string } | undefined;

  public constructor(
    private readonly path: string,
    private readonly head: Head,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * What a resume read back, taken over (not copied: for a large run it is most of what the process
   * holds); `stored` when checkpoint.json already holds exactly that.
   */
  public restore(done: Map<string, CheckpointEntry>, files: Map<string, number>, stored?: Checkpoint): void {
    this.done = done;
    this.files = files;
    // The mark holds only while checkpoint.json accounts for every batch file as it is now.
    this.completeRun = stored?.complete;
    this.stored = stored === undefined ? undefined : { changes: this.changes, head: headKey(stored) };
  }

  public get size(): number {
    return this.done.size;
  }

  public get(id: string): CheckpointEntry | undefined {
    return this.done.get(id);
  }

  /** Row position -> the content hash of the row its records were made from (as read back: before this invocation wrote any). */
  public rowHashesByIndex(): Map<number, string> {
    const hashes = new Map<number, string>();
    for (const entry of this.done.values()) if (entry.row_hash !== undefined) hashes.set(entry.prompt_index, entry.row_hash);
    return hashes;
  }

  /** What an earlier invocation found complete, if nothing has changed since. */
  public get complete(): CompleteRun | undefined {
    return this.completeRun;
  }

  /** Every (row, sample) of `selection` is done: a --resume of the same has nothing to run. */
  public markComplete(selection: CompleteRun): void {
    this.completeRun = selection;
    this.changes += 1;
  }

  /**
   * The records of one append, once it is on disk: their entries, and `bytes` more of `file`
   * accounted for. Appends of one file settle in any order, so a file's recorded size equals its
   * real size only when every line in it has its entry.
   */
  public add(records: readonly (readonly [string, CheckpointEntry])[], file: string, bytes: number): void {
    for (const [id, entry] of records) this.done.set(id, entry);
    this.files.set(file, (this.files.get(file) ?? 0) + bytes);
    this.completeRun = undefined;
    this.changes += 1;
  }

  public toJSON(): Checkpoint {
    return {
      version: 1,
      run_name: this.head.run_name,
      ...(this.head.dataset ? { dataset: this.head.dataset } : {}),
      ...(this.head.endpoint ? { endpoint: this.head.endpoint } : {}),
      done: Object.fromEntries(this.done),
      files: Object.fromEntries(this.files),
      ...(this.completeRun ? { complete: this.completeRun } : {}),
      last_updated: new Date(this.now()).toISOString(),
    };
  }

  /** Writes when the interval has passed since the last write; never two writes at once. */
  public async maybeWrite(): Promise<void> {
    if (this.writing || this.now() < this.nextWrite) return;
    await this.write();
  }

  /** Writes unless checkpoint.json holds this state already (a resume that found everything done). */
  public async write(): Promise<void> {
    while (this.writing) await this.writing;
    const stored = { changes: this.changes, head: headKey(this.head) };
    if (this.stored?.changes === stored.changes && this.stored.head === stored.head) return;
    const started = this.now();
    this.nextWrite = started + this.intervalMs;
    this.writing = writeJsonAtomic(this.path, this.toJSON())
      .then(() => {
        this.stored = stored;
        this.nextWrite = Math.max(this.nextWrite, started + WRITE_SPACING * (this.now() - started));
      })
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
  }
}

function headKey(head: Head): string {
  return JSON.stringify([head.run_name, head.dataset ?? null, head.endpoint ?? null]);
}
