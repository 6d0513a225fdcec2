// checkpoint.json (schemas/checkpoint.schema.json): record id -> what became of it, written
// atomically. The batch files are the truth (a record is done once its line is fsynced there), and
// a resume trusts the checkpoint only for the batch files whose line counts its entries match
// (runDirectory.ts) and reads the others back from the records; it is written at most once per interval
// during a run and once at its end, so a run of a million prompts does not rewrite a growing file
// after every record.
import { writeJsonAtomic, type Checkpoint, type CheckpointEntry } from '@hermes-datagen/core';

export const CHECKPOINT_FILE = 'checkpoint.json';

export class CheckpointState {
  private readonly done = new Map<string, CheckpointEntry>();
  private lastWrite = 0;
  private writing: Promise<void> | undefined;

  public constructor(
    private readonly path: string,
    private readonly head: Pick<Checkpoint, 'run_name' | 'dataset' | 'endpoint'>,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  public get size(): number {
    return this.done.size;
  }

  public get(id: string): CheckpointEntry | undefined {
    return this.done.get(id);
  }

  public set(id: string, entry: CheckpointEntry): void {
    this.done.set(id, entry);
  }

  public toJSON(): Checkpoint {
    return {
      version: 1,
      run_name: this.head.run_name,
      ...(this.head.dataset ? { dataset: this.head.dataset } : {}),
      ...(this.head.endpoint ? { endpoint: this.head.endpoint } : {}),
      done: Object.fromEntries(this.done),
      last_updated: new Date(this.now()).toISOString(),
    };
  }

  /** Writes when the interval has passed since the last write; never two writes at once. */
  public async maybeWrite(): Promise<void> {
    if (this.writing || this.now() - this.lastWrite < this.intervalMs) return;
    await this.write();
  }

  public async write(): Promise<void> {
    while (this.writing) await this.writing;
    this.lastWrite = this.now();
    this.writing = writeJsonAtomic(this.path, this.toJSON()).finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }
}
