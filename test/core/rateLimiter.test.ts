// The limiter on fake clocks: every wait is driven by the test advancing time, nothing sleeps.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuotaExhaustedError, RateLimiter, type LimiterOptions, type Permit } from '@hermes-datagen/core/internal/rateLimiter.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const never = new AbortController().signal;
const limiter = (options: Partial<LimiterOptions> = {}): RateLimiter => new RateLimiter({ maxConcurrency: 64, quotaWaitMs: 300_000, ...options });

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

/** Answers that carry LiteLLM's count of the key's fixed window of `limit` requests. */
function keyWindowCount(limit: number): (remaining: number) => { status: number; headers: Headers } {
  return (remaining) => ({
    status: 200,
    headers: new Headers({ 'x-ratelimit-api_key-remaining-requests': String(remaining), 'x-ratelimit-api_key-limit-requests': String(limit) }),
  });
}

/** A deterministic stand-in for Math.random (a linear congruential generator). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * A gateway with a request quota (a token bucket of `rps` a second, one second's worth deep) that
 * answers after `latencyMs` and refuses at once when the bucket is empty, and `workers` callers that
 * each call again as soon as they are answered (a refused one after the limiter's backoff): what
 * succeeds and what is refused in each second of `seconds`.
 */
async function simulate(rate: RateLimiter, { rps, latencyMs, workers, seconds }: { rps: number; latencyMs: number; workers: number; seconds: number }) {
  const start = Date.now();
  let tokens = rps;
  let tokensAt = start;
  const perSecond = Array.from({ length: seconds }, () => ({ ok: 0, refused: 0 }));
  const random = seeded(7);
  let stopped = false;
  const worker = async (): Promise<void> => {
    let refusals = 0;
    while (!stopped) {
      const permit = await rate.acquire(0, never);
      const now = Date.now();
      tokens = Math.min(rps, tokens + ((now - tokensAt) / 1000) * rps);
      tokensAt = now;
      const second = perSecond[Math.floor((now - start) / 1000)];
      if (tokens >= 1) {
        tokens -= 1;
        await new Promise((resolve) => setTimeout(resolve, latencyMs));
        rate.release(permit, { status: 200 });
        if (second) second.ok += 1;
        refusals = 0;
      } else {
        rate.release(permit, { status: 429, refused: true });
        if (second) second.refused += 1;
        await new Promise((resolve) => setTimeout(resolve, rate.backoffMs(refusals, random)));
        refusals += 1;
      }
    }
  };
  for (let i = 0; i < workers; i += 1) void worker();
  await vi.advanceTimersByTimeAsync(seconds * 1000);
  stopped = true;
  await vi.advanceTimersByTimeAsync(60_000);
  return perSecond;
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

  it('AIMD: a refusal cuts the requests in flight to 0.7 of them, once per round; successes add one per round', async () => {
    const rate = limiter({ maxConcurrency: 20 });
    const round = await Promise.all(Array.from({ length: 20 }, () => rate.acquire(0, never)));
    rate.release(round[0]!, { status: 429, refused: true });
    expect(rate.limit).toBe(14);
    // Refusals of requests that went out before the cut are the same congestion: no further cut.
    for (const permit of round.slice(1, 10)) rate.release(permit, { status: 429, refused: true });
    expect(rate.limit).toBe(14);
    for (const permit of round.slice(10)) rate.release(permit, { status: 200 });
    await vi.advanceTimersByTimeAsync(1);
    // A refusal of a request sent after the cut cuts again.
    rate.release(await rate.acquire(0, never), { status: 429, refused: true });
    // The ten successes had raised 14 to 14.7: 0.7 of it.
    expect(rate.limit).toBe(10);
    // Above the cut's level, one more request in flight per round of successes: eleven of them at eleven.
    while (rate.limit < 11) rate.release(await rate.acquire(0, never), { status: 200 });
    let successes = 0;
    while (rate.limit < 12) {
      rate.release(await rate.acquire(0, never), { status: 200 });
      successes += 1;
    }
    expect(successes).toBeGreaterThanOrEqual(10);
    expect(successes).toBeLessThanOrEqual(12);
    // Never more in flight than the limit.
    const held = await Promise.all(Array.from({ length: 12 }, () => rate.acquire(0, never)));
    let twelfth = false;
    void rate.acquire(0, never).then(() => (twelfth = true));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(twelfth).toBe(false);
    rate.release(held[0]!, { status: 200 });
    await vi.advanceTimersByTimeAsync(0);
    expect(twelfth).toBe(true);
    expect(rate.stats).toMatchObject({ rateLimited: 11, refusalsPerMinute: 11 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(rate.stats.refusalsPerMinute).toBe(0);
  });

  it('converges to a quota that says nothing: 64 callers, 20 requests/s, replies in 1 s, no headers, no Retry-After', async () => {
    const rate = limiter({ maxConcurrency: 64 });
    const seconds = await simulate(rate, { rps: 20, latencyMs: 1000, workers: 64, seconds: 120 });
    // After the first half minute: at least 0.85 of the quota goes through, and few calls are refused.
    const settled = seconds.slice(30);
    const ok = settled.reduce((sum, s) => sum + s.ok, 0);
    const refused = settled.reduce((sum, s) => sum + s.refused, 0);
    expect(ok / (20 * settled.length)).toBeGreaterThanOrEqual(0.85);
    expect(refused / (ok + refused)).toBeLessThanOrEqual(0.05);
    expect(rate.limit).toBeGreaterThanOrEqual(10);
    expect(rate.limit).toBeLessThanOrEqual(40);
  });

  it('pauses only when one request at a time is refused: then ONE probe, and only its success opens the way', async () => {
    const pauses: string[] = [];
    const rate = limiter({ maxConcurrency: 1, onPause: (message) => pauses.push(message) });
    const before = await rate.acquire(0, never);
    // maxConcurrency 1: this refusal comes at one in flight.
    rate.release(before, { status: 429, refused: true, retryAfterMs: 2_000 });
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toMatch(/refuses even one request at a time .*waits 2s, then one probe/);
    const granted: number[] = [];
    const start = Date.now();
    const permits: Permit[] = [];
    for (let i = 0; i < 5; i += 1)
      void rate.acquire(0, new AbortController().signal).then((permit) => {
        granted.push(Date.now() - start);
        permits.push(permit);
      });
    await vi.advanceTimersByTimeAsync(5_000);
    // One probe at the pause's end; the others wait for its answer.
    expect(granted).toEqual([2000]);
    expect(permits[0]!.probe).toBe(true);
    // The probe is refused (at 5 s): a pause twice as long, not announced again.
    rate.release(permits[0]!, { status: 429, refused: true });
    await vi.advanceTimersByTimeAsync(3_999);
    expect(granted).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([2000, 9000]);
    expect(pauses).toHaveLength(1);
    // The second probe passes: the way opens, from one request in flight.
    rate.release(permits[1]!, { status: 200 });
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual([2000, 9000, 9000]);
  });

  it('gives up when the run has had no successful call for --quota-wait: onExhausted, and every waiting request is refused', async () => {
    let exhausted = '';
    const rate = limiter({ quotaWaitMs: 5_000, maxConcurrency: 1, onExhausted: (reason) => (exhausted = reason) });
    rate.release(await rate.acquire(0, never), { status: 200 });
    await vi.advanceTimersByTimeAsync(1_000);
    rate.release(await rate.acquire(0, never), { status: 429, refused: true });
    const waiting = rate.acquire(0, never).catch((error: unknown) => error);
    // The probes are refused too, until --quota-wait after the last success.
    for (let i = 0; i < 10 && exhausted === ''; i += 1) {
      await vi.advanceTimersByTimeAsync(1_000);
      const probe = await Promise.race([waiting, new Promise((resolve) => setTimeout(resolve, 0))]);
      if (probe && typeof probe === 'object' && 'probe' in probe) rate.release(probe as Permit, { status: 429, refused: true });
    }
    expect(exhausted).toMatch(/no model call has succeeded for 5s \(--quota-wait 5s\).*--resume continues it later/);
    expect(Date.now() - 1_000_000).toBeLessThanOrEqual(7_000);
    await expect(rate.acquire(0, never)).rejects.toBeInstanceOf(QuotaExhaustedError);
  });

  it('gives up at once when a refusal asks to wait longer than --quota-wait (a Retry-After of an hour)', async () => {
    let exhausted = '';
    const rate = limiter({ quotaWaitMs: 300_000, onExhausted: (reason) => (exhausted = reason) });
    rate.release(await rate.acquire(0, never), { status: 429, refused: true, retryAfterMs: 3_600_000 });
    expect(exhausted).toMatch(/asks to wait 3600s \(Retry-After\), longer than --quota-wait 300s/);
    await expect(rate.acquire(0, never)).rejects.toBeInstanceOf(QuotaExhaustedError);
  });

  it('paces from a budget with size and reset (OpenAI, Anthropic): starts at its refill rate once it runs low', async () => {
    const rate = limiter();
    const permit = await rate.acquire(0, never);
    // 60 a minute, 59 spent, full again in 59 s: one request a second.
    rate.release(permit, {
      status: 200,
      headers: new Headers({ 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-reset-requests': '59s' }),
    });
    expect(await grantTimes(rate, 3, 5_000)).toEqual([0, 1000, 2000]);
    const anthropic = limiter();
    const reset = new Date(Date.now() + 9_000).toISOString();
    anthropic.release(await anthropic.acquire(0, never), {
      status: 200,
      headers: new Headers({
        'anthropic-ratelimit-requests-limit': '10',
        'anthropic-ratelimit-requests-remaining': '1',
        'anthropic-ratelimit-requests-reset': reset,
      }),
    });
    expect(await grantTimes(anthropic, 2, 5_000)).toEqual([0, 1000]);
  });

  it('waits out a spent budget that gives only a reset, capped at 30 s', async () => {
    const rate = limiter();
    rate.release(await rate.acquire(0, never), {
      status: 200,
      headers: new Headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' }),
    });
    expect(await grantTimes(rate, 1, 5_000)).toEqual([1500]);
    rate.release(await rate.acquire(0, never), {
      status: 200,
      headers: new Headers({ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s' }),
    });
    expect(await grantTimes(rate, 1, 60_000)).toEqual([30_000]);
  });

  it("LiteLLM's fixed window (a limit, no reset): the requests past what it holds wait for its end, learnt from a refusal, which cuts nothing", async () => {
    const rate = limiter({ maxConcurrency: 8 });
    const counted = keyWindowCount(4);
    const first = await rate.acquire(0, never);
    await vi.advanceTimersByTimeAsync(100);
    const rest = await Promise.all([1, 2, 3].map(() => rate.acquire(0, never)));
    // The first found 3 left of 4, and 3 went out after it: spent, but its end is not known yet.
    rate.release(first, counted(3));
    await vi.advanceTimersByTimeAsync(5900);
    const late = await rate.acquire(0, never);
    // LiteLLM's Retry-After: the window's whole length. The window began at 0, so it ends at 10 s.
    rate.release(late, { status: 429, refused: true, retryAfterMs: 10_000 });
    expect(rate.limit).toBe(8);
    expect(rate.refusalWaitMs(10_000, 0)).toBe(4100);
    expect(rate.refusalWaitMs(1000, 0)).toBe(1000);
    for (const permit of rest) rate.release(permit, counted(0));
    expect(await grantTimes(rate, 3, 10_000)).toEqual([4100, 4100, 4100]);
    expect(rate.refusalWaitMs(10_000, 0)).toBe(10_000);
  });

  it("LiteLLM's windows are one a scope: a refusal is taken as the one with least left, and its tokens count waits in its requests' window", async () => {
    const rate = limiter({ maxConcurrency: 8 });
    const counted = (key: number, team: number, teamTokens = 500) => ({
      status: 200,
      headers: new Headers({
        'x-ratelimit-api_key-remaining-requests': String(key),
        'x-ratelimit-api_key-limit-requests': '100',
        'x-ratelimit-team-remaining-requests': String(team),
        'x-ratelimit-team-limit-requests': '10',
        'x-ratelimit-team-remaining-tokens': String(teamTokens),
        'x-ratelimit-team-limit-tokens': '1000',
      }),
    });
    // Both windows begin at 0; at 2 s the team's has 1 left of 10, the key's 90 of 100.
    rate.release(await rate.acquire(0, never), counted(99, 9));
    await vi.advanceTimersByTimeAsync(2000);
    rate.release(await rate.acquire(0, never), counted(90, 2));
    const refused = await rate.acquire(0, never);
    rate.release(refused, { status: 429, refused: true, retryAfterMs: 5000 });
    // The team's window: it began at 0 and lasts 5 s. The key's learnt nothing, so it holds nothing.
    expect(rate.refusalWaitMs(5000, 0)).toBe(3100);
    expect(await grantTimes(rate, 1, 5000)).toEqual([3100]);
    // A new team window with the next request, at 7 s, then its tokens spent: the next request waits
    // for that window's end, 5 s later.
    rate.release(await rate.acquire(0, never), counted(80, 9));
    rate.release(await rate.acquire(0, never), counted(79, 8, 0));
    expect(await grantTimes(rate, 1, 6000)).toEqual([5100]);
  });

  it('a spent fixed window whose length no refusal says: probes 250 ms apart find its end, and the level from before returns at once', async () => {
    const rate = limiter({ maxConcurrency: 8 });
    const counted = keyWindowCount(2);
    rate.release(await rate.acquire(0, never), counted(1));
    await vi.advanceTimersByTimeAsync(100);
    rate.release(await rate.acquire(0, never), counted(0));
    await vi.advanceTimersByTimeAsync(100);
    rate.release(await rate.acquire(0, never), { status: 429, refused: true });
    const probe = async () => {
      const start = Date.now();
      const permit = await new Promise<Permit>((resolve) => {
        void rate.acquire(0, never).then(resolve);
        void vi.advanceTimersByTimeAsync(1000);
      });
      return { permit, after: Date.now() - start };
    };
    const refusedProbe = await probe();
    expect([refusedProbe.after, refusedProbe.permit.probe]).toEqual([250, true]);
    rate.release(refusedProbe.permit, { status: 429, refused: true });
    const admitted = await probe();
    expect(admitted.after).toBe(250);
    // The next window began with it, 700 ms after the first: the windows last 700 ms at most.
    rate.release(admitted.permit, counted(1));
    expect(rate.limit).toBe(8);
    rate.release(await rate.acquire(0, never), counted(0));
    expect(await grantTimes(rate, 2, 2000)).toEqual([800, 800]);
  });

  it("LiteLLM's remaining count alone (named after the model): while it says none is left, successes do not raise the requests in flight", async () => {
    const rate = limiter({ model: 'gpt-x', maxConcurrency: 8 });
    // A refusal cuts 8 to 5.6.
    rate.release(await rate.acquire(0, never), { status: 429, refused: true });
    expect(rate.limit).toBe(5);
    const answer = (remaining: string, model = 'gpt-x') => ({
      status: 200,
      headers: new Headers({ [`x-litellm-key-remaining-requests-${model}`]: remaining }),
    });
    for (let i = 0; i < 30; i += 1) rate.release(await rate.acquire(0, never), answer('0'));
    expect(rate.limit).toBe(5);
    // Another model's count says nothing of this one's budget; a count above 0 lets the window grow again.
    for (let i = 0; i < 30; i += 1) rate.release(await rate.acquire(0, never), answer('0', 'other-model'));
    expect(rate.limit).toBe(8);
    rate.release(await rate.acquire(0, never), { status: 429, refused: true });
    for (let i = 0; i < 30; i += 1) rate.release(await rate.acquire(0, never), answer('3'));
    expect(rate.limit).toBe(8);
  });

  it("LiteLLM's count at 0 holds the level: answer after answer that says 0 does not shrink the requests in flight", async () => {
    const rate = limiter({ model: 'gpt-x', maxConcurrency: 8 });
    const spent = { status: 200, headers: new Headers({ 'x-litellm-key-remaining-requests-gpt-x': '0' }) };
    let held = await Promise.all(Array.from({ length: 8 }, () => rate.acquire(0, never)));
    // Each answer's prompt sends its next call: the level of 8 holds, round after round.
    for (let round = 0; round < 5; round += 1) {
      const next: Permit[] = [];
      for (const permit of held) {
        rate.release(permit, spent);
        expect(rate.limit).toBe(8);
        next.push(await rate.acquire(0, never));
      }
      held = next;
    }
  });

  it('a request unanswered far longer than answers take (hung until its timeout) stops holding its place in flight', async () => {
    const rate = limiter({ maxConcurrency: 2 });
    // Answers take 100 ms: a request goes stale after the floor, 10 s (5 x 100 ms is less).
    const first = await rate.acquire(0, never);
    await vi.advanceTimersByTimeAsync(100);
    rate.release(first, { status: 200 });
    const hung = await Promise.all([rate.acquire(0, never), rate.acquire(0, never)]);
    let grantedAt: number | undefined;
    const start = Date.now();
    void rate.acquire(0, never).then(() => (grantedAt = Date.now() - start));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(grantedAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(grantedAt).toBe(10_000);
    // Both still count as in flight for the progress line, and their late answers are taken as any other.
    expect(rate.stats.inFlight).toBe(3);
    for (const permit of hung) rate.release(permit, { status: 200 });
    expect(rate.stats.inFlight).toBe(1);
  });

  it('before any answer, no request in flight goes stale: the first ones may take as long as they take', async () => {
    const rate = limiter({ maxConcurrency: 1 });
    await rate.acquire(0, never);
    let granted = false;
    void rate.acquire(0, never).then(() => (granted = true));
    await vi.advanceTimersByTimeAsync(600_000);
    expect(granted).toBe(false);
  });

  it('gives an aborted wait back at once', async () => {
    const rate = limiter({ rpm: 1 });
    await rate.acquire(0, never);
    const stop = new AbortController();
    const waiting = rate.acquire(0, stop.signal).catch((error: unknown) => error);
    stop.abort(new Error('stopped'));
    expect(await waiting).toMatchObject({ message: 'stopped' });
  });

  it('backs off with full jitter, doubling up to 30 s', () => {
    const rate = limiter();
    expect([0, 1, 2, 10].map((attempt) => rate.backoffMs(attempt, () => 1))).toEqual([500, 1000, 2000, 30_000]);
    expect(rate.backoffMs(3, () => 0.5)).toBe(2000);
  });
});
