// One limiter for every model request of the process (every prompt, every sub-agent), so the
// endpoint sees one client, not many that each think they are alone:
// - --rpm: request starts are spaced 60/rpm seconds apart, so no minute ever holds more than rpm;
// - --tpm: a token bucket of one minute's tokens, charged an estimate before the call and
//   corrected with the reported usage after it;
// - the provider's own x-ratelimit-remaining-* / x-ratelimit-reset-* headers pace requests before a
//   429 happens, and a 429's Retry-After pauses every request (capped);
// - adaptive concurrency: a burst of 429s halves the requests allowed in flight, which then grow
//   back by one per round of successes;
// - an exhausted quota (a Retry-After beyond the cap, an insufficient_quota error) pauses the whole
//   run for at most --quota-wait; if the first answer after the pause still says so, the limiter
//   gives up (onExhausted), so the run can end resumably instead of failing every prompt. (Not one
//   probe alone: a probe that hangs would hold every prompt back.)
import { headerRetryAfterMs, type ResponseHeaders } from '@hermes-datagen/core/endpoint';

export interface LimiterOptions {
  readonly rpm?: number | undefined;
  readonly tpm?: number | undefined;
  /** Requests in flight at most (adaptive concurrency starts here and never goes above). */
  readonly maxConcurrency: number;
  /** The longest pause a Retry-After may impose; a longer one means an exhausted quota. */
  readonly retryAfterCapMs: number;
  /** How long an exhausted quota may pause the run before the probe. */
  readonly quotaWaitMs: number;
  /** Called once when the quota is still exhausted after the pause. */
  readonly onExhausted?: (reason: string) => void;
  /** Told each time the limiter starts a pause, with the reason (for stderr). */
  readonly onPause?: (message: string) => void;
  readonly now?: () => number;
}

/** What came back for one request. */
export interface Outcome {
  /** HTTP status; undefined when no response came (connection error, timeout). */
  readonly status?: number | undefined;
  readonly headers?: ResponseHeaders | undefined;
  /** Tokens the response reported using (usage.total_tokens). */
  readonly tokens?: number | undefined;
  /** The response said the quota is exhausted (insufficient_quota). */
  readonly quota?: boolean | undefined;
}

export interface Permit {
  readonly estimate: number;
}

export class QuotaExhaustedError extends Error {
  public constructor(reason: string) {
    super(reason);
    this.name = 'QuotaExhaustedError';
  }
}

/** 429s within this window count as a burst. */
const BURST_WINDOW_MS = 10_000;
const BURST_SIZE = 3;
/** After a cut, no further cut for this long (the cut needs time to show). */
const CUT_COOLDOWN_MS = 10_000;

/** The provider's budget headers (OpenAI's names), spelled out once rather than built per response. */
const BUDGET_HEADERS = [
  { kind: 'requests', remainingHeader: 'x-ratelimit-remaining-requests', resetHeader: 'x-ratelimit-reset-requests' },
  { kind: 'tokens', remainingHeader: 'x-ratelimit-remaining-tokens', resetHeader: 'x-ratelimit-reset-tokens' },
] as const;

export class RateLimiter {
  private readonly now: () => number;
  private readonly spacingMs: number;
  private nextStartAt = 0;
  private pausedUntil = 0;
  private tokens: number;
  private tokensAt: number;
  private inFlight = 0;
  private limitValue: number;
  private successes = 0;
  private recent429: number[] = [];
  private lastCutAt = -Infinity;
  private quota: 'ok' | 'paused' | 'probing' | 'exhausted' = 'ok';
  private exhaustedReason = '';
  private readonly waiters = new Set<() => void>();
  private counts = { requests: 0, rateLimited: 0 };

  public constructor(private readonly options: LimiterOptions) {
    this.now = options.now ?? Date.now;
    this.spacingMs = options.rpm === undefined ? 0 : 60_000 / options.rpm;
    this.tokens = options.tpm ?? 0;
    this.tokensAt = this.now();
    this.limitValue = options.maxConcurrency;
  }

  /** Whether acquire() uses its token estimate (--tpm); without it a caller need not make one. */
  public get countsTokens(): boolean {
    return this.options.tpm !== undefined;
  }

  /** Requests allowed in flight now (adaptive). */
  public get limit(): number {
    return this.limitValue;
  }

  public get stats(): { requests: number; rateLimited: number; inFlight: number } {
    return { ...this.counts, inFlight: this.inFlight };
  }

  /** Waits until a request may start; rejects on abort or once the quota is exhausted. */
  public async acquire(estimate: number, signal: AbortSignal): Promise<Permit> {
    for (;;) {
      signal.throwIfAborted();
      if (this.quota === 'exhausted') throw new QuotaExhaustedError(this.exhaustedReason);
      const now = this.now();
      // Requests after a quota pause are probes: the first answer decides.
      if (this.quota === 'paused' && now >= this.pausedUntil) this.quota = 'probing';
      const limit = this.limitValue;
      const readyAt = Math.max(this.nextStartAt, this.pausedUntil, this.tokensReadyAt(estimate, now));
      if (this.inFlight < limit && readyAt <= now) {
        this.inFlight += 1;
        this.counts.requests += 1;
        this.nextStartAt = now + this.spacingMs;
        if (this.options.tpm !== undefined) this.tokens -= Math.min(estimate, this.options.tpm);
        return { estimate };
      }
      await this.wait(this.inFlight < limit ? readyAt - now : undefined, signal);
    }
  }

  /** Ends a request and learns from what came back. */
  public release(permit: Permit, outcome: Outcome): void {
    this.inFlight -= 1;
    const now = this.now();
    if (this.options.tpm !== undefined && outcome.tokens !== undefined) {
      this.refill(now);
      this.tokens = Math.min(this.options.tpm, this.tokens + Math.min(permit.estimate, this.options.tpm) - outcome.tokens);
    }
    if (outcome.headers) this.pace(outcome.headers, now);
    // Read only where it counts, a 429 or an exhausted quota: every response passes here, hundreds a second.
    const retryAfter = outcome.headers && (outcome.status === 429 || outcome.quota) ? headerRetryAfterMs(outcome.headers, now) : undefined;
    if (outcome.quota || (outcome.status === 429 && retryAfter !== undefined && retryAfter > this.options.retryAfterCapMs)) {
      this.counts.rateLimited += 1;
      this.quotaSignal(
        retryAfter,
        now,
        outcome.quota === true
          ? 'the endpoint says the quota is exhausted (insufficient_quota)'
          : `the endpoint asks to wait ${Math.round((retryAfter ?? 0) / 1000)}s (Retry-After)`,
      );
    } else if (outcome.status === 429) {
      this.counts.rateLimited += 1;
      if (retryAfter !== undefined) this.pauseUntil(now + retryAfter);
      this.rateLimited(now);
    } else if (outcome.status !== undefined && outcome.status < 400) {
      this.succeeded(now);
    }
    this.wake();
  }

  /** Full-jitter exponential backoff before retry `attempt` (0-based): up to 0.5 s x 2^attempt, at most 30 s. */
  public backoffMs(attempt: number, random: () => number = Math.random): number {
    return Math.round(random() * Math.min(30_000, 500 * 2 ** attempt));
  }

  private tokensReadyAt(estimate: number, now: number): number {
    const { tpm } = this.options;
    if (tpm === undefined) return 0;
    this.refill(now);
    const need = Math.min(estimate, tpm) - this.tokens;
    return need <= 0 ? 0 : now + (need / tpm) * 60_000;
  }

  private refill(now: number): void {
    const { tpm } = this.options;
    if (tpm === undefined) return;
    this.tokens = Math.min(tpm, this.tokens + ((now - this.tokensAt) / 60_000) * tpm);
    this.tokensAt = now;
  }

  /** x-ratelimit-remaining-requests / -tokens and their resets: wait out a spent budget, spread a thin one. */
  private pace(headers: ResponseHeaders, now: number): void {
    for (const { kind, remainingHeader, resetHeader } of BUDGET_HEADERS) {
      const remainingText = headers.get(remainingHeader);
      if (remainingText === null) continue;
      const remaining = Number.parseFloat(remainingText);
      const reset = durationMs(headers.get(resetHeader));
      if (!Number.isFinite(remaining) || reset === undefined) continue;
      const wait = Math.min(reset, this.options.retryAfterCapMs);
      if (remaining <= 0) this.pauseUntil(now + wait);
      else if (kind === 'requests' && remaining < this.inFlight + 1) this.nextStartAt = Math.max(this.nextStartAt, now + wait / (remaining + 1));
    }
  }

  private pauseUntil(until: number): void {
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
  }

  private rateLimited(now: number): void {
    this.successes = 0;
    this.recent429 = this.recent429.filter((at) => now - at < BURST_WINDOW_MS);
    this.recent429.push(now);
    if (this.recent429.length >= BURST_SIZE && now - this.lastCutAt >= CUT_COOLDOWN_MS && this.limitValue > 1) {
      this.limitValue = Math.max(1, Math.floor(this.limitValue / 2));
      this.lastCutAt = now;
      this.recent429 = [];
      this.options.onPause?.(`a burst of 429s: requests in flight cut to ${this.limitValue}`);
    }
  }

  private succeeded(now: number): void {
    if (this.quota === 'probing' || this.quota === 'paused') this.quota = 'ok';
    this.successes += 1;
    // Slow recovery: one more request in flight per full round of successes, none while 429s are recent.
    if (this.limitValue < this.options.maxConcurrency && this.successes >= this.limitValue && now - this.lastCutAt >= CUT_COOLDOWN_MS) {
      this.limitValue += 1;
      this.successes = 0;
    }
  }

  private quotaSignal(retryAfter: number | undefined, now: number, why: string): void {
    if (this.quota === 'exhausted') return;
    if (this.quota === 'probing') {
      this.quota = 'exhausted';
      this.exhaustedReason = `the quota is still exhausted after a pause of ${this.options.quotaWaitMs / 1000}s (${why}); the run stops and --resume continues it later`;
      this.options.onExhausted?.(this.exhaustedReason);
      return;
    }
    if (this.quota === 'paused') return;
    this.quota = 'paused';
    const pause = Math.min(retryAfter ?? this.options.quotaWaitMs, this.options.quotaWaitMs);
    this.pauseUntil(now + pause);
    this.options.onPause?.(
      `${why}: every request paused for ${Math.round(pause / 100) / 10}s (--quota-wait); if it is still exhausted then, the run stops, resumably`,
    );
  }

  private async wait(ms: number | undefined, signal: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, Math.max(0, Math.ceil(ms)));
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** OpenAI-style reset durations: "1s", "6m0s", "20ms", "1h2m", or plain seconds. */
export function durationMs(text: string | null): number | undefined {
  if (text === null) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  const unit = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
  return parts.reduce((sum, [, n, u]) => sum + Number.parseFloat(n!) * unit[u as keyof typeof unit], 0);
}
