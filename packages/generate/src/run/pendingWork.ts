// Work that goes on after its prompt has given its slot back: a finished record waiting for its
// group's fsync (batchAppender.ts) while the next prompt already runs. At most `limit` pieces wait at
// once (a caller over the limit waits, so a slow disk slows the run instead of filling memory), and
// the first failure is reported at once and kept for the end of the run.

export class PendingWork {
  private count = 0;
  private readonly slotWaiters: (() => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private failure: { readonly error: unknown } | undefined;

  public constructor(
    private readonly limit: number,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Tracks `work`; resolves at once, or when it is one of at most `limit` pieces still waiting. */
  public async add(work: Promise<void>): Promise<void> {
    this.count += 1;
    work.then(
      () => this.finished(),
      (error: unknown) => {
        if (!this.failure) {
          this.failure = { error };
          this.onFailure(error);
        }
        this.finished();
      },
    );
    while (this.count > this.limit) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  /** Resolves when nothing is pending; rejects with the first failure, if any. */
  public async settled(): Promise<void> {
    if (this.count > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (this.failure) throw this.failure.error;
  }

  private finished(): void {
    this.count -= 1;
    this.slotWaiters.shift()?.();
    if (this.count === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
