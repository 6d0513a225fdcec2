// A gateway's quota, so that rate limiting is testable: token buckets of requests (--rps / --rpm)
// and tokens (--tpm), each one second deep, that refuse a request at once with a 429 when empty;
// random 429s besides (--rate-429); the budget headers of one dialect on every answer
// (--limit-headers: OpenAI's x-ratelimit-*, Anthropic's anthropic-ratelimit-*, LiteLLM's), and how
// a refusal says when to come back (--retry-after: a Retry-After in seconds or as an HTTP date, the
// body's words, or nothing).
// LiteLLM counts as its proxy does (litellm/proxy/hooks/parallel_request_limiter_v3.py), not in
// buckets: fixed windows of --window-s (its LITELLM_RATE_LIMIT_WINDOW_SIZE, 60 s), each begun by the
// first request after the last one ended, holding a window's worth of the rate; an answer carries
// x-ratelimit-api_key-{remaining,limit}-<kind> and the per-model x-litellm-key-remaining-<kind>-<model>,
// no reset; a refusal's Retry-After is the window's whole length, whatever is left of it.
import type { HeaderMap } from './http.js';

export const LIMIT_HEADER_STYLES = ['none', 'openai', 'anthropic', 'litellm'] as const;
export const RETRY_AFTER_STYLES = ['none', 'seconds', 'date', 'body'] as const;
export type LimitHeaderStyle = (typeof LIMIT_HEADER_STYLES)[number];
export type RetryAfterStyle = (typeof RETRY_AFTER_STYLES)[number];

export interface QuotaOptions {
  /** Requests a second (a token bucket one second deep). */
  readonly rps?: number | undefined;
  /** Tokens a minute, charged about 4 characters a token of the request's messages (a bucket one second deep, at least one request's worth). */
  readonly tpm?: number | undefined;
  /** Share of requests refused at random, whatever the buckets hold. */
  readonly rate429?: number | undefined;
  /** What a random 429 asks to wait, in seconds (a bucket's refusal asks for the time until it has room). */
  readonly randomWaitS?: number | undefined;
  readonly limitHeaders?: LimitHeaderStyle | undefined;
  /** LiteLLM's fixed window, in seconds (with limitHeaders litellm; default 60). */
  readonly windowS?: number | undefined;
  readonly retryAfter?: RetryAfterStyle | undefined;
  readonly seed?: number | undefined;
  readonly now?: () => number;
}

export type Admission =
  | { readonly refused: false; readonly headers: HeaderMap }
  | { readonly refused: true; readonly headers: HeaderMap; readonly message: string };

/** What the quota counts a budget in: a bucket, or a fixed window. */
interface Budget {
  readonly capacity: number;
  /** What is left of it now. */
  remaining(now: number): number;
  /** Takes cost if there is room (an empty budget has room for one request, however large). */
  take(cost: number, now: number): boolean;
  /** Seconds a refusal asks to wait. */
  retryAfterS(cost: number, now: number): number;
  /** Seconds until it is full again. */
  resetS(now: number): number;
}

class Bucket implements Budget {
  private level: number;
  private at: number;

  public constructor(
    private readonly perSecond: number,
    now: number,
  ) {
    this.level = this.capacity;
    this.at = now;
  }

  public get capacity(): number {
    return Math.max(1, this.perSecond);
  }

  public remaining(now: number): number {
    this.level = Math.min(this.capacity, this.level + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    return this.level;
  }

  /** Takes cost if there is room (a full bucket always has room for one request). */
  public take(cost: number, now: number): boolean {
    const level = this.remaining(now);
    if (level < Math.min(cost, this.capacity)) return false;
    this.level -= cost;
    return true;
  }

  /** Seconds until the bucket holds cost (or is full). */
  public retryAfterS(cost: number, now: number): number {
    return Math.max(0, Math.min(cost, this.capacity) - this.remaining(now)) / this.perSecond;
  }

  public resetS(now: number): number {
    return (this.capacity - Math.max(0, this.remaining(now))) / this.perSecond;
  }
}

/** LiteLLM's window: `capacity` a window, the window begun by the first request after the last one ended. */
class FixedWindow implements Budget {
  public readonly capacity: number;
  private startedAt: number | undefined;
  private used = 0;

  public constructor(
    perSecond: number,
    private readonly windowS: number,
  ) {
    this.capacity = Math.max(1, Math.round(perSecond * windowS));
  }

  public remaining(now: number): number {
    if (this.startedAt !== undefined && now - this.startedAt >= this.windowS * 1000) this.startedAt = undefined;
    return this.startedAt === undefined ? this.capacity : this.capacity - this.used;
  }

  public take(cost: number, now: number): boolean {
    const left = this.remaining(now);
    if (this.startedAt === undefined) {
      this.startedAt = now;
      this.used = 0;
    } else if (left < Math.min(cost, this.capacity)) return false;
    this.used += cost;
    return true;
  }

  /** LiteLLM's own "conservative estimate": the window's whole length. */
  public retryAfterS(): number {
    return this.windowS;
  }

  public resetS(now: number): number {
    return this.startedAt === undefined ? 0 : Math.max(0, this.windowS - (now - this.startedAt) / 1000);
  }
}

export class Quota {
  private readonly now: () => number;
  private readonly requests: Budget | undefined;
  private readonly tokens: Budget | undefined;
  private draws: number;

  public constructor(private readonly options: QuotaOptions) {
    this.now = options.now ?? Date.now;
    const now = this.now();
    const budget = (perSecond: number): Budget =>
      options.limitHeaders === 'litellm' ? new FixedWindow(perSecond, options.windowS ?? 60) : new Bucket(perSecond, now);
    this.requests = options.rps === undefined ? undefined : budget(options.rps);
    this.tokens = options.tpm === undefined ? undefined : budget(options.tpm / 60);
    this.draws = Math.imul((options.seed ?? 0) + 1, 2_654_435_761) | 1;
  }

  /** Whether the quota is in play at all (the server asks only then). */
  public static wanted(options: QuotaOptions): boolean {
    return options.rps !== undefined || options.tpm !== undefined || (options.rate429 ?? 0) > 0 || (options.limitHeaders ?? 'none') !== 'none';
  }

  /** Lets a request through, or refuses it; either way with the budget headers of the chosen dialect. */
  public admit(model: string, promptChars: number): Admission {
    const now = this.now();
    const cost = Math.ceil(promptChars / 4);
    let waitS: number | undefined;
    if (this.random() < (this.options.rate429 ?? 0)) waitS = this.options.randomWaitS ?? 1;
    else if (this.requests !== undefined && !this.requests.take(1, now)) waitS = this.requests.retryAfterS(1, now);
    else if (this.tokens !== undefined && !this.tokens.take(cost, now)) {
      // The request's token is given back: it was not let through.
      this.requests?.take(-1, now);
      waitS = this.tokens.retryAfterS(cost, now);
    }
    if (waitS === undefined) return { refused: false, headers: this.budgetHeaders(model, now) };
    // LiteLLM refuses before its answer's headers are made: a refusal carries none of them.
    return { refused: true, ...this.refusal(waitS, this.options.limitHeaders === 'litellm' ? {} : this.budgetHeaders(model, now), now) };
  }

  private refusal(waitS: number, headers: HeaderMap, now: number): { headers: HeaderMap; message: string } {
    const base = 'Rate limit reached for requests.';
    switch (this.options.retryAfter ?? 'seconds') {
      case 'seconds':
        return { headers: { ...headers, 'retry-after': String(Math.max(1, Math.ceil(waitS))) }, message: `${base} Please slow down.` };
      case 'date':
        return {
          headers: { ...headers, 'retry-after': new Date(now + Math.max(1, Math.ceil(waitS)) * 1000).toUTCString() },
          message: `${base} Please slow down.`,
        };
      case 'body':
        return { headers, message: `${base} Please try again in ${formatSeconds(waitS)}.` };
      case 'none':
        return { headers, message: `${base} Please slow down.` };
    }
  }

  private budgetHeaders(model: string, now: number): HeaderMap {
    const style = this.options.limitHeaders ?? 'none';
    const headers: HeaderMap = {};
    const budgets = [
      ['requests', this.requests],
      ['tokens', this.tokens],
    ] as const;
    for (const [kind, bucket] of budgets) {
      if (bucket === undefined) continue;
      const remaining = String(Math.max(0, Math.floor(bucket.remaining(now))));
      const limit = String(Math.floor(bucket.capacity));
      const resetS = bucket.resetS(now);
      if (style === 'openai') {
        headers[`x-ratelimit-limit-${kind}`] = limit;
        headers[`x-ratelimit-remaining-${kind}`] = remaining;
        headers[`x-ratelimit-reset-${kind}`] = formatSeconds(resetS);
      } else if (style === 'anthropic') {
        headers[`anthropic-ratelimit-${kind}-limit`] = limit;
        headers[`anthropic-ratelimit-${kind}-remaining`] = remaining;
        headers[`anthropic-ratelimit-${kind}-reset`] = new Date(now + resetS * 1000).toISOString();
      } else if (style === 'litellm') {
        headers[`x-ratelimit-api_key-remaining-${kind}`] = remaining;
        headers[`x-ratelimit-api_key-limit-${kind}`] = limit;
        headers[`x-litellm-key-remaining-${kind}-${model}`] = remaining;
      }
    }
    return headers;
  }

  /** A seeded draw in [0, 1) (xorshift32): the same seed refuses the same arrivals. */
  private random(): number {
    let x = this.draws;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.draws = x;
    return (x >>> 0) / 2 ** 32;
  }
}

/** OpenAI's way: "20ms", "1.5s". */
function formatSeconds(seconds: number): string {
  return seconds < 1 ? `${Math.ceil(seconds * 1000)}ms` : `${Math.round(seconds * 1000) / 1000}s`;
}
