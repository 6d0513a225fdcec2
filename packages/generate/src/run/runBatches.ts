// Batch numbers for an invocation's prompts, batch_size consecutive prompts a batch, after the
// highest existing file. A batch's file is created with its first record and closed once its last
// prompt is settled (written, failed or stopped).
import { BatchAppender } from './batchAppender.js';

export class RunBatches {
  private readonly open = new Map<number, Promise<BatchAppender>>();
  private readonly pending = new Map<number, number>();
  private lastAssigned = -1;
  private ended = false;

  public constructor(
    private readonly dir: string,
    private readonly first: number,
    private readonly size: number,
  ) {}

  /** The batch of the `sequence`th prompt this invocation runs (from 0). */
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

  /** No prompt is assigned after this: the last batch closes once its prompts are settled. */
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
