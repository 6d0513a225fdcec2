// --prompt-timeout's clock: the prompt's own work, not its waits. It runs from the prompt's start
// and stops while any of its model calls (its sub-agents' included) waits for the rate limiter: for
// a slot, a backoff or a Retry-After, a pause of the whole run. So it counts the HTTP attempts
// (each bounded by --request-timeout), the tools, and the agent's own time between them; a prompt
// behind a busy quota is never failed for waiting. Over the budget, onExpire is called once.
import type { WaitTracker } from '@hermes-datagen/core/endpoint';

export class PromptClock implements WaitTracker {
  private waiting = 0;
  private usedMs = 0;
  private runningSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private expired = false;

  public constructor(
    private readonly budgetMs: number,
    private readonly onExpire: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.run();
  }

  /** The prompt's own time so far, in ms. */
  public get elapsedMs(): number {
    return this.usedMs + (this.runningSince === undefined ? 0 : this.now() - this.runningSince);
  }

  public begin(): void {
    this.waiting += 1;
    if (this.waiting === 1) this.hold();
  }

  public end(): void {
    this.waiting -= 1;
    if (this.waiting === 0) this.run();
  }

  /** The prompt is over: the clock stops for good. */
  public stop(): void {
    this.hold();
    this.expired = true;
  }

  private run(): void {
    if (this.expired) return;
    this.runningSince = this.now();
    this.timer = setTimeout(
      () => {
        this.expired = true;
        this.onExpire();
      },
      Math.max(0, this.budgetMs - this.usedMs),
    );
  }

  private hold(): void {
    clearTimeout(this.timer);
    if (this.runningSince !== undefined) this.usedMs += this.now() - this.runningSince;
    this.runningSince = undefined;
  }
}
