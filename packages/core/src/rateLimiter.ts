// One limiter for every model request of the process (every prompt, every sub-agent), so the
// endpoint sees one client, not many that each think they are alone. It finds the quota whether or
// not the endpoint says anything, and waiting for it never fails a call:
// - adaptive concurrency (AIMD): a rate-limit refusal cuts the requests allowed in flight to
//   BETA of it (once per round: only a refusal of a request started after the last cut cuts
//   again), a success raises it by one per round of successes (by one per success below the level
//   of the last cut, as after a pause, so a recovery takes a few rounds, not hundreds);
// - pacing from the budgets the endpoint reports (rateLimitHints.ts): with its size and reset, starts
//   are spaced at the rate the budget refills once it runs low; with a reset alone, a spent budget
//   waits for it; LiteLLM's fixed windows (a size and no reset, one window a scope: fixedWindow.ts):
//   once the requests sent will spend a window, the rest wait for its end, and so does a refused
//   request whose Retry-After (the whole window's length) would hold it longer; a refusal of a spent
//   window cuts nothing, and a pause for it ends by probes WINDOW_PROBE_MS apart; with the remaining count
//   alone (LiteLLM's per-model one), the requests in flight stop growing while it says none is left
//   (it was counted when the request went in, an answer ago, so it caps no level: capping at what is
//   in flight at each answer ratcheted the run down and left quota unused);
// - a pause only when even one request in flight is refused: every request waits, then ONE probe
//   goes out, and only its success opens the way again (no herd); the pause is announced once, and
//   a request from before it that succeeds meanwhile does not end it;
// - a request that has gone unanswered far longer than answers take (STALE_FACTOR x their average,
//   at least STALE_FLOOR_MS) stops holding its place among those in flight: it is most likely hung
//   until its --request-timeout, and a few hung ones must not hold a window that random 429s have
//   made small (a fault storm's 3% of calls that never get an answer stalled the whole run);
// - --rpm / --tpm are hard caps on top: request starts spaced 60/rpm seconds apart, and a token
//   bucket of one minute's tokens charged an estimate before a call and its usage after;
// - the run gives up (onExhausted, then every acquire is refused) only when it has had no
//   successful call for --quota-wait while its calls are refused, or a refusal asks to wait longer
//   than that (a Retry-After of an hour).
import { budgetHeaders, readBudgets, type BudgetReading } from './rateLimitHints.js';
import type { ResponseHeaders } from './chatClient.js';
import { FixedWindows } from './fixedWindow.js';

/** --quota-wait's default: a gateway's per-minute window, several times over. */
export const DEFAULT_QUOTA_WAIT_S = 300;

export interface LimiterOptions {
  readonly rpm?: number | undefined;
  readonly tpm?: number | undefined;
  /** Requests in flight at most (adaptive concurrency starts here and never goes above). */
  readonly maxConcurrency: number;
  /** How long the run may go without a successful call while its calls are refused before it gives up. */
  readonly quotaWaitMs: number;
  /** The model asked for: LiteLLM's budget headers are named after it. */
  readonly model?: string | undefined;
  /** Called once when the limiter gives up. */
  readonly onExhausted?: (reason: string) => void;
  /** Told once when a pause starts, with the reason (for stderr). */
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
  /** The endpoint refused the request for its rate limit (rateLimitHints.ts isRateLimitRefusal). */
  readonly refused?: boolean | undefined;
  /** How long the refusal asks to wait, in ms (Retry-After, a body hint). */
  readonly retryAfterMs?: number | undefined;
}

export interface Permit {
  readonly estimate: number;
  /** How many cuts came before it started: a refusal cuts again only for a request sent after the last cut. */
  readonly round: number;
  /** The one request sent after a pause. */
  readonly probe: boolean;
  /** When it went out (the limiter's clock). */
  readonly startedAt: number;
}

export class QuotaExhaustedError extends Error {
  public constructor(reason: string) {
    super(reason);
    this.name = 'QuotaExhaustedError';
  }
}

/** What a refusal leaves of the requests in flight (CUBIC's factor: gentler than halving, so the run stays near the quota). */
const BETA = 0.7;
/** A pause with no Retry-After to go by starts here and doubles while probes are refused, up to the cap. */
const FIRST_PAUSE_MS = 1000;
const PAUSE_CAP_MS = 30_000;
/** Between probes for the end of a spent fixed window whose length is not known yet. */
const WINDOW_PROBE_MS = 250;
/** An unanswered request stops counting among those in flight after this many times the average answer's time... */
const STALE_FACTOR = 5;
/** ...and never sooner than this. */
const STALE_FLOOR_MS = 10_000;
/** Weight of the newest answer in the average answer time. */
const LATENCY_WEIGHT = 0.2;
/** Refusals counted for the progress line's rate. */
const RATE_WINDOW_MS = 60_000;

type Phase = 'open' | 'paused' | 'probing' | 'exhausted';

export class RateLimiter {
  private readonly now: () => number;
  private readonly spacingMs: number;
  private readonly dialects;
  private nextStartAt = 0;
  private pausedUntil = 0;
  private tokens: number;
  private tokensAt: number;
  /** Start times of the requests in flight, oldest first. */
  private readonly starts: number[] = [];
  /** Average time of a successful answer (ms); undefined before the first. */
  private latencyMs: number | undefined;
  /** Requests allowed in flight, fractional between whole steps. */
  private window: number;
  /** Below it a success adds one request, above it one per round. */
  private threshold: number;
  private cuts = 0;
  private lastSuccessAt: number;
  /** From a budget that reports only what remains (LiteLLM): it says none is left, so successes do not raise the window. */
  private budgetLow = false;
  /** From a budget with a size and a reset: the start spacing of its refill rate, while it runs low. */
  private budgetSpacingMs = 0;
  /** The budgets counted in fixed windows (LiteLLM's, one a scope), each learnt. */
  private readonly fixedWindows = new FixedWindows();
  private phase: Phase = 'open';
  private probeOut = false;
  private pauseMs = 0;
  private exhaustedReason = '';
  private readonly waiters = new Set<() => void>();
  /** Retry waits, cut short when the limiter gives up. */
  private readonly retryWaits = new Set<() => void>();
  private readonly refusals: number[] = [];
  private counts = { requests: 0, rateLimited: 0 };

  public constructor(private readonly options: LimiterOptions) {
    this.now = options.now ?? Date.now;
    this.spacingMs = options.rpm === undefined ? 0 : 60_000 / options.rpm;
    this.tokens = options.tpm ?? 0;
    this.tokensAt = this.now();
    this.lastSuccessAt = this.now();
    this.window = options.maxConcurrency;
    this.threshold = options.maxConcurrency;
    this.dialects = budgetHeaders(options.model);
  }

  /** Whether acquire() uses its token estimate (--tpm); without it a caller need not make one. */
  public get countsTokens(): boolean {
    return this.options.tpm !== undefined;
  }

  /** Requests allowed in flight now (adaptive). */
  public get limit(): number {
    if (this.phase === 'probing' || this.phase === 'paused') return 1;
    return Math.max(1, Math.floor(this.window));
  }

  public get stats(): { requests: number; rateLimited: number; inFlight: number; limit: number; refusalsPerMinute: number } {
    this.forgetOldRefusals(this.now());
    return { ...this.counts, inFlight: this.inFlight, limit: this.limit, refusalsPerMinute: this.refusals.length };
  }

  /** Waits until a request may start; rejects on abort or once the limiter has given up. */
  public async acquire(estimate: number, signal: AbortSignal): Promise<Permit> {
    for (;;) {
      signal.throwIfAborted();
      if (this.phase === 'exhausted') throw new QuotaExhaustedError(this.exhaustedReason);
      const now = this.now();
      if (this.phase === 'paused' && now >= this.pausedUntil) this.phase = 'probing';
      const probing = this.phase === 'probing';
      // While paused, every request waits for the pause's end, when one of them goes out as the probe
      // (whatever is still in flight from before: it may hang for a --request-timeout).
      const slotFree = this.phase === 'paused' || (probing ? !this.probeOut : this.answerable(now) < this.limit);
      const readyAt = Math.max(this.nextStartAt, this.pausedUntil, this.tokensReadyAt(estimate, now));
      if (slotFree && readyAt <= now) {
        this.starts.push(now);
        this.counts.requests += 1;
        this.nextStartAt = now + Math.max(this.spacingMs, this.budgetSpacingMs);
        if (this.options.tpm !== undefined) this.tokens -= Math.min(estimate, this.options.tpm);
        if (probing) this.probeOut = true;
        return { estimate, round: this.cuts, probe: probing, startedAt: now };
      }
      await this.wait(slotFree ? readyAt - now : this.nextStaleAt(now), signal);
    }
  }

  /** Ends a request and learns from what came back. */
  public release(permit: Permit, outcome: Outcome): void {
    const at = this.starts.indexOf(permit.startedAt);
    if (at >= 0) this.starts.splice(at, 1);
    if (permit.probe) this.probeOut = false;
    const now = this.now();
    if (this.options.tpm !== undefined && outcome.tokens !== undefined) {
      this.refill(now);
      this.tokens = Math.min(this.options.tpm, this.tokens + Math.min(permit.estimate, this.options.tpm) - outcome.tokens);
    }
    if (outcome.headers) this.pace(readBudgets(outcome.headers, this.dialects, now), permit, now);
    if (outcome.refused) {
      this.fixedWindows.refused(outcome.retryAfterMs);
      this.refused(permit, outcome.retryAfterMs, now);
    } else if (outcome.status !== undefined && outcome.status < 400) this.succeeded(permit, now);
    this.wake();
  }

  /**
   * Waits ms before a retry (a Retry-After, a backoff); ends at once when the limiter gives up, so
   * the retry's acquire can refuse it. Rejects with the signal's reason on abort.
   */
  public retryWait(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const done = (): void => {
        clearTimeout(timer);
        this.retryWaits.delete(done);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        done();
        reject(signal.reason);
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.retryWaits.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
      if (this.phase === 'exhausted') done();
    });
  }

  /** Full-jitter exponential backoff before retry `attempt` (0-based): up to 0.5 s x 2^attempt, at most 30 s. */
  public backoffMs(attempt: number, random: () => number = Math.random): number {
    return Math.round(random() * Math.min(30_000, 500 * 2 ** attempt));
  }

  /**
   * How long a refused request waits before its retry (`refusals` before it): what the refusal asks,
   * else a backoff; but no longer than the fixed window it was refused by has left, when that is known
   * (LiteLLM's Retry-After is the whole window's length, however little is left of it).
   */
  public refusalWaitMs(retryAfterMs: number | undefined, refusals: number): number {
    const asked = retryAfterMs ?? this.backoffMs(refusals);
    const left = (this.fixedWindows.spentEnd ?? 0) - this.now();
    return left > 0 ? Math.min(asked, left) : asked;
  }

  private succeeded(permit: Permit, now: number): void {
    this.lastSuccessAt = now;
    const took = now - permit.startedAt;
    this.latencyMs = this.latencyMs === undefined ? took : this.latencyMs + LATENCY_WEIGHT * (took - this.latencyMs);
    if (permit.probe && this.phase === 'probing') {
      // The way is open again: from one request in flight back up to the last cut's level, a round at a
      // time; after a spent window, at once at the level from before (the quota was spent, not the
      // gateway overrun).
      this.phase = 'open';
      this.pauseMs = 0;
      if (!this.fixedWindows.seen) this.window = 1;
      return;
    }
    // A request sent before the pause that succeeds now does not end it: only the probe's answer does.
    if (this.phase !== 'open') return;
    if (this.budgetLow) return;
    const step = this.window < this.threshold ? 1 : 1 / this.window;
    this.window = Math.min(this.options.maxConcurrency, this.window + step);
  }

  private refused(permit: Permit, retryAfterMs: number | undefined, now: number): void {
    this.counts.rateLimited += 1;
    this.refusals.push(now);
    this.forgetOldRefusals(now);
    if (this.phase === 'exhausted') return;
    const quotaWait = this.options.quotaWaitMs;
    const stalledMs = now - this.lastSuccessAt;
    if ((retryAfterMs ?? 0) > quotaWait) {
      this.exhaust(`the endpoint asks to wait ${seconds(retryAfterMs!)} (Retry-After), longer than --quota-wait ${seconds(quotaWait)}`);
      return;
    }
    if (stalledMs >= quotaWait) {
      this.exhaust(`no model call has succeeded for ${seconds(stalledMs)} (--quota-wait ${seconds(quotaWait)}), every one refused as rate-limited`);
      return;
    }
    if (this.phase !== 'open') {
      // The probe (or a request from before the pause) was refused: pause again, longer, unannounced.
      if (permit.probe || this.phase === 'probing') this.pause(retryAfterMs, now);
      return;
    }
    if (this.fixedWindows.spent) {
      // A window is spent, which says nothing of how many requests may be in flight: no cut. Its end
      // known, every request waits for it; else probes, a short wait apart, find it.
      const end = this.fixedWindows.spentEnd;
      if (end !== undefined && end > now) this.waitForWindow(end);
      else this.pause(retryAfterMs, now);
      return;
    }
    if (permit.round < this.cuts) return;
    const before = this.window;
    this.threshold = Math.max(1, before * BETA);
    this.window = this.threshold;
    this.cuts += 1;
    if (before < 2) {
      this.pause(retryAfterMs, now);
      this.options.onPause?.(
        `the endpoint refuses even one request at a time (rate-limited): every request waits ${seconds(this.pausedUntil - now)}, then one probe; ` +
          `the run gives up, resumably, after --quota-wait ${seconds(quotaWait)} without a successful call`,
      );
    }
  }

  private pause(retryAfterMs: number | undefined, now: number): void {
    const doubled = Math.min(PAUSE_CAP_MS, this.pauseMs === 0 ? FIRST_PAUSE_MS : this.pauseMs * 2);
    // A spent window ends at a moment the probe is to find: not doubled past it.
    this.pauseMs = this.fixedWindows.spent ? Math.min(retryAfterMs ?? WINDOW_PROBE_MS, WINDOW_PROBE_MS) : (retryAfterMs ?? doubled);
    // The last probe goes out when --quota-wait runs out, so its refusal ends the run then, not a pause later.
    const deadline = this.lastSuccessAt + this.options.quotaWaitMs;
    this.pausedUntil = Math.max(this.pausedUntil, Math.min(now + this.pauseMs, Math.max(now, deadline)));
    this.phase = 'paused';
  }

  private exhaust(why: string): void {
    this.phase = 'exhausted';
    this.exhaustedReason = `${why}; the run stops and --resume continues it later`;
    this.options.onExhausted?.(this.exhaustedReason);
    for (const retry of [...this.retryWaits]) retry();
  }

  /** The budgets a response reports: wait out a spent one, spread a thin one. */
  private pace(readings: readonly BudgetReading[], permit: Permit, now: number): void {
    this.budgetLow = false;
    for (const { kind, remaining, limit, resetMs, window } of readings) {
      const low = remaining <= this.inFlight + 1;
      if (window !== undefined && limit !== undefined) {
        // Each request sent after this one takes one more of what it found left.
        const sentSince = kind === 'requests' ? this.starts.filter((start) => start > permit.startedAt).length : 0;
        const until = this.fixedWindows.observe(window, kind, remaining, limit, permit.startedAt, sentSince);
        if (until !== undefined) this.waitForWindow(until);
      } else if (limit !== undefined && resetMs !== undefined && resetMs > 0 && limit > remaining) {
        // A bucket: it refills at (limit - remaining) / reset. Only the request budget spaces starts.
        if (kind === 'requests') this.budgetSpacingMs = low ? resetMs / (limit - remaining) : 0;
        else if (remaining <= 0) this.pacingPause(now + resetMs / (limit - remaining));
      } else if (resetMs !== undefined) {
        if (remaining <= 0) this.pacingPause(now + resetMs);
        else if (kind === 'requests' && low) this.nextStartAt = Math.max(this.nextStartAt, now + resetMs / (remaining + 1));
      } else if (kind === 'requests') {
        this.budgetLow = remaining < 1;
      }
    }
  }

  /** Every request holds back until a spent window's end: learnt from the gateway's own counts, so not capped as pacingPause is. */
  private waitForWindow(until: number): void {
    this.nextStartAt = Math.max(this.nextStartAt, until);
  }

  /** A wait the budget headers ask for: every request holds back, but it is pacing, not a pause (no probe, no message). */
  private pacingPause(until: number): void {
    this.nextStartAt = Math.max(this.nextStartAt, Math.min(until, this.now() + PAUSE_CAP_MS));
  }

  /** Requests sent and not yet released. */
  private get inFlight(): number {
    return this.starts.length;
  }

  /** How long an unanswered request counts among those in flight; for ever before the first answer. */
  private get staleAfterMs(): number {
    return this.latencyMs === undefined ? Infinity : Math.max(STALE_FLOOR_MS, STALE_FACTOR * this.latencyMs);
  }

  /** The requests in flight that may still be answered: not gone stale. */
  private answerable(now: number): number {
    const staleBefore = now - this.staleAfterMs;
    let stale = 0;
    while (stale < this.starts.length && this.starts[stale]! <= staleBefore) stale += 1;
    return this.starts.length - stale;
  }

  /** Ms until the oldest answerable request goes stale (and frees its place); undefined when none will. */
  private nextStaleAt(now: number): number | undefined {
    const staleBefore = now - this.staleAfterMs;
    const oldest = this.starts.find((start) => start > staleBefore);
    return oldest === undefined || !Number.isFinite(this.staleAfterMs) ? undefined : oldest + this.staleAfterMs - now;
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

  private forgetOldRefusals(now: number): void {
    let old = 0;
    while (old < this.refusals.length && now - this.refusals[old]! >= RATE_WINDOW_MS) old += 1;
    if (old > 0) this.refusals.splice(0, old);
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

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}
