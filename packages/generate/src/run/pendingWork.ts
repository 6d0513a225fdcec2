// Work that goes on after its prompt has given its slot back: a finished record waiting for its
// group's fsync (batchAppender.ts) while the next prompt already runs. The records waiting at once
// are bounded by their size, not their number: a group commit holds every record that finishes in
// its window, which at zero latency is hundreds, and a bound near the number of prompts in flight
// would make the prompts wait for the disk in turn (the run then idles between groups). Over the
// bound a caller waits, so a slow disk slows the run instead of filling memory; one piece alone may
// exceed it. The first failure is reported at once and kept for the end of the run.

export class PendingWork {
  private count = 0;
  private bytes = 0;
  private readonly slotWaiters: (() => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private failure: { readonly error: unknown } | undefined;

  public constructor(
    private readonly maxBytes: number,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Tracks `work` of `bytes`; resolves at once, or once the pieces still waiting (this one included) are within maxBytes. */
  public async add(work: Promise<void>, bytes: number): Promise<void> {
    this.count += 1;
    this.bytes += bytes;
    work.then(
      () => this.finished(bytes),
      (error: unknown) => {
        if (!this.failure) {
          this.failure = { error };
          this.onFailure(error);
        }
        this.finished(bytes);
      },
    );
    while (this.bytes > this.maxBytes && this.count > 1) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  /** Resolves when nothing is pending; rejects with the first failure, if any. */
  public async settled(): Promise<void> {
    if (this.count > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (this.failure) throw this.failure.error;
  }

  private finished(bytes: number): void {
    this.count -= 1;
    this.bytes -= bytes;
    this.slotWaiters.shift()?.();
    if (this.count === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
