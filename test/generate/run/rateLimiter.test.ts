// The limiter on fake clocks: every wait is driven by the test advancing time, nothing sleeps.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { headerRetryAfterMs } from '@hermes-datagen/core/endpoint';
import { durationMs, QuotaExhaustedError, RateLimiter, type LimiterOptions } from '@hermes-datagen/generate/internal/run/rateLimiter.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const never = new AbortController().signal;
const limiter = (options: Partial<LimiterOptions> = {}): RateLimiter =>
  new RateLimiter({ maxConcurrency: 64, retryAfterCapMs: 30_000, quotaWaitMs: 60_000, ...options });

/**
 * Starts n acquires, each with a signal of its own as each prompt has (hundreds of waiters on one
 * signal would trip Node's MaxListenersExceededWarning); returns the times (ms from now) at which
 * each got its permit, released at once.
 */
async function grantTimes(rate: RateLimiter, n: number, runForMs: number, estimate = 1): Promise<number[]> {
  const start = Date.now();
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) {
    void rate.acquire(estimate, new AbortController().signal).then((permit) => {
      times.push(Date.now() - start);
      rate.release(permit, { status: 200 });
    });
  }
  await vi.advanceTimersByTimeAsync(runForMs);
  return times;
}

describe('RateLimiter', () => {
  it('--rpm spaces request starts 60/rpm seconds apart, so no minute holds more than rpm', async () => {
    const times = await grantTimes(limiter({ rpm: 60 }), 5, 10_000);
    expect(times).toEqual([0, 1000, 2000, 3000, 4000]);
    const busy = await grantTimes(limiter({ rpm: 120 }), 300, 120_000);
    for (let i = 0; i < busy.length; i += 1) expect(busy.filter((t) => t >= busy[i]! && t < busy[i]! + 60_000).length).toBeLessThanOrEqual(120);
  });

  it('--tpm charges an estimate before the call and corrects it with the usage after', async () => {
    const rate = limiter({ tpm: 600 });
    const first = await rate.acquire(400, never);
    // 200 tokens left: a second 400-token call waits for 200 more, 20 s at 10 tokens/s.
    let granted = -1;
    const start = Date.now();
    void rate.acquire(400, never).then(() => (granted = Date.now() - start));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(granted).toBe(-1);
    // The first call used only 100 tokens: 300 come back and the second starts now.
    rate.release(first, { status: 200, tokens: 100 });
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toBe(10_000);
  });

  it('asks for a token estimate only under --tpm', () => {
    expect(limiter({ tpm: 600 }).countsTokens).toBe(true);
    expect(limiter({ rpm: 60 }).countsTokens).toBe(false);
  });

  it('a 429 with Retry-After pauses every request for that long, capped', async () => {
    const rate = limiter();
    const permit = await rate.acquire(1, never);
    rate.release(permit, { status: 429, headers: new Headers({ 'retry-after': '2' }) });
    expect(await grantTimes(rate, 2, 5_000)).toEqual([2000, 2000]);
  });

  it("the provider's x-ratelimit headers pace requests before a 429: a spent budget waits for its reset", async () => {
    const rate = limiter();
    const permit = await rate.acquire(1, never);
    rate.release(permit, { status: 200, headers: new Headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' }) });
    expect(await grantTimes(rate, 1, 5_000)).toEqual([1500]);
    const tokens = await rate.acquire(1, never);
    rate.release(tokens, { status: 200, headers: new Headers({ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s' }) });
    // Capped like a Retry-After.
    expect(await grantTimes(rate, 1, 60_000)).toEqual([30_000]);
  });

  it('halves the requests in flight on a burst of 429s and grows back by one per round of successes', async () => {
    const rate = limiter({ maxConcurrency: 8 });
    for (let i = 0; i < 3; i += 1) rate.release(await rate.acquire(1, never), { status: 429 });
    expect(rate.limit).toBe(4);
    // Within the cooldown a further burst does not cut again.
    for (let i = 0; i < 3; i += 1) rate.release(await rate.acquire(1, never), { status: 429 });
    expect(rate.limit).toBe(4);
    await vi.advanceTimersByTimeAsync(10_000);
    for (let i = 0; i < 4; i += 1) rate.release(await rate.acquire(1, never), { status: 200 });
    expect(rate.limit).toBe(5);
    for (let i = 0; i < 5; i += 1) rate.release(await rate.acquire(1, never), { status: 200 });
    expect(rate.limit).toBe(6);
    // Never more in flight than the limit.
    const held = await Promise.all(Array.from({ length: 6 }, () => rate.acquire(1, never)));
    let seventh = false;
    void rate.acquire(1, never).then(() => (seventh = true));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seventh).toBe(false);
    rate.release(held[0]!, { status: 200 });
    await vi.advanceTimersByTimeAsync(0);
    expect(seventh).toBe(true);
  });

  it('pauses the run on an exhausted quota and carries on when the first answer after the pause passes', async () => {
    const pauses: string[] = [];
    const rate = limiter({ quotaWaitMs: 5_000, onPause: (message) => pauses.push(message) });
    rate.release(await rate.acquire(1, never), { status: 429, headers: new Headers({ 'retry-after': '3600' }) });
    expect(pauses[0]).toMatch(/asks to wait 3600s .*paused for 5s/);
    const times = await grantTimes(rate, 3, 6_000);
    expect(times).toEqual([5000, 5000, 5000]);
    // A quota answer now would be a new pause, not the end: the probe passed.
    rate.release(await rate.acquire(1, never), { status: 429, quota: true });
    expect(pauses).toHaveLength(2);
  });

  it('gives up when the quota is still exhausted after the pause: onExhausted, and every waiting request is refused', async () => {
    let exhausted = '';
    const rate = limiter({ quotaWaitMs: 5_000, maxConcurrency: 1, onExhausted: (reason) => (exhausted = reason) });
    rate.release(await rate.acquire(1, never), { status: 429, quota: true });
    const probe = rate.acquire(1, never);
    // Waits for the probe's slot (one in flight at most here).
    const other = rate.acquire(1, never).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(5_000);
    rate.release(await probe, { status: 429, quota: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(exhausted).toMatch(/still exhausted after a pause of 5s .*--resume continues it later/);
    expect(await other).toBeInstanceOf(QuotaExhaustedError);
    await expect(rate.acquire(1, never)).rejects.toBeInstanceOf(QuotaExhaustedError);
  });

  it('gives an aborted wait back at once', async () => {
    const rate = limiter({ rpm: 1 });
    await rate.acquire(1, never);
    const stop = new AbortController();
    const waiting = rate.acquire(1, stop.signal).catch((error: unknown) => error);
    stop.abort(new Error('stopped'));
    expect(await waiting).toMatchObject({ message: 'stopped' });
  });

  it('backs off with full jitter, doubling up to 30 s', () => {
    const rate = limiter();
    expect([0, 1, 2, 10].map((attempt) => rate.backoffMs(attempt, () => 1))).toEqual([500, 1000, 2000, 30_000]);
    expect(rate.backoffMs(3, () => 0.5)).toBe(2000);
  });
});

describe('rate-limit header values', () => {
  it('reads OpenAI-style durations and Retry-After in either header', () => {
    expect(['1s', '6m0s', '20ms', '1h2m', '0.5', 'soon', '1x'].map((text) => durationMs(text))).toEqual([
      1000,
      360_000,
      20,
      3_720_000,
      500,
      undefined,
      undefined,
    ]);
    expect(headerRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), 0)).toBe(250);
    expect(headerRetryAfterMs(new Headers({ 'retry-after': '3' }), 0)).toBe(3000);
    expect(headerRetryAfterMs(new Headers(), 0)).toBeUndefined();
  });
});
