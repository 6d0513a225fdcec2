// A request budget counted in fixed windows, as LiteLLM's proxy counts a key's (its
// parallel_request_limiter_v3: a limit a window, each window begun by the first request after the last
// one ended; answers carry the remaining count and the limit, no reset; a refusal's Retry-After is the
// window's whole length, whatever is left of it). No answer says when the window ends, so it is
// learnt: a window began when the request that found it untouched (remaining = limit - 1) went out;
// it lasts the last refusal's Retry-After, else the shortest time seen from one window's start to the
// next one's (a window begins only once the last has ended, so that is never too short). Once the
// requests already sent will spend what is left, the next one waits for the window's end: the run
// sends what a window holds as fast as it may, then nothing that would only be refused.

/** Past the end learnt, so that the first request of the next window does not reach the gateway before it. */
const END_MARGIN_MS = 100;

export class FixedWindow {
  private startedAt: number | undefined;
  /** The last refusal's Retry-After (a short one, of a refusal that is no window's, is undone by the next). */
  private askedMs: number | undefined;
  /** The shortest time from one window's start to the next one's. */
  private seenMs: number | undefined;
  private spentFlag = false;
  /** What the last count left of the window for requests not yet sent, as a share of its limit. */
  private left = 1;

  /** Whether a budget in windows has been seen at all. */
  public get seen(): boolean {
    return this.startedAt !== undefined;
  }

  /** The current window is spent (by the requests sent, or a refusal said so) and no next one is seen yet. */
  public get spent(): boolean {
    return this.spentFlag;
  }

  /** What the last count left of the window, as a share of its limit: a refusal is taken as the window's with least left. */
  public get shareLeft(): number {
    return this.left;
  }

  /** When the current window ends, once both its start and the windows' length are known. */
  public get endsAt(): number | undefined {
    const length = this.askedMs ?? this.seenMs;
    return this.startedAt === undefined || length === undefined ? undefined : this.startedAt + length + END_MARGIN_MS;
  }

  /**
   * One answer's count of the window: `remaining` of `limit` when the request went out at `sentAt`,
   * with `sentSince` requests sent after it (each takes one more). Returns until when new requests
   * must wait, when they would find the window spent and its end is known.
   */
  public observe(remaining: number, limit: number, sentAt: number, sentSince: number): number | undefined {
    if (remaining >= limit - 1 && (this.startedAt === undefined || sentAt > this.startedAt)) {
      if (this.startedAt !== undefined) this.seenMs = Math.min(this.seenMs ?? Infinity, sentAt - this.startedAt);
      this.startedAt = sentAt;
      this.spentFlag = false;
    }
    if (sentAt < (this.startedAt ?? 0)) return undefined;
    this.left = limit > 0 ? (remaining - sentSince) / limit : 0;
    if (remaining - sentSince > 0) return undefined;
    this.spentFlag = true;
    return this.endsAt;
  }

  /** Another count of the window (LiteLLM's tokens, counted in its requests' window) says it is spent: until when to wait, if known. */
  public spentByOther(): number | undefined {
    if (this.startedAt === undefined) return undefined;
    this.spentFlag = true;
    this.left = 0;
    return this.endsAt;
  }

  /** A refusal, once windows are seen: the window is spent; LiteLLM's Retry-After is the window's length. */
  public refused(retryAfterMs: number | undefined): void {
    if (this.startedAt === undefined) return;
    this.spentFlag = true;
    if (retryAfterMs !== undefined && retryAfterMs > 0) this.askedMs = retryAfterMs;
  }
}

/** A process's budgets counted in fixed windows, one window a scope (LiteLLM's api_key, team, model_per_key, …), by name. */
export class FixedWindows {
  private readonly byName = new Map<string, FixedWindow>();

  /** Whether a budget in windows has been seen at all. */
  public get seen(): boolean {
    return [...this.byName.values()].some((window) => window.seen);
  }

  /** Whether a window is spent. */
  public get spent(): boolean {
    return [...this.byName.values()].some((window) => window.spent);
  }

  /** When the last of the spent windows ends; undefined when none is spent or one's end is not known. */
  public get spentEnd(): number | undefined {
    let end: number | undefined;
    for (const window of this.byName.values()) {
      if (!window.spent) continue;
      if (window.endsAt === undefined) return undefined;
      end = Math.max(end ?? 0, window.endsAt);
    }
    return end;
  }

  /**
   * One answer's count of the window `name`: a requests count as FixedWindow.observe reads it (with
   * `sentSince`), a tokens count only as the window spent when nothing is left. Returns until when new
   * requests must wait, if they must.
   */
  public observe(name: string, kind: 'requests' | 'tokens', remaining: number, limit: number, sentAt: number, sentSince: number): number | undefined {
    const window = this.named(name);
    if (kind === 'requests') return window.observe(remaining, limit, sentAt, sentSince);
    return remaining <= 0 ? window.spentByOther() : undefined;
  }

  /** A refusal, taken as the window's with least left of those seen. */
  public refused(retryAfterMs: number | undefined): void {
    let refusing: FixedWindow | undefined;
    for (const window of this.byName.values()) if (window.seen && (refusing === undefined || window.shareLeft < refusing.shareLeft)) refusing = window;
    refusing?.refused(retryAfterMs);
  }

  private named(name: string): FixedWindow {
    const known = this.byName.get(name);
    if (known !== undefined) return known;
    const window = new FixedWindow();
    this.byName.set(name, window);
    return window;
  }
}
