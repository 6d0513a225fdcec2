// The limited client against the real scripted endpoint over HTTP: a wait for the limiter never
// counts against the per-attempt timeout, a rate-limit refusal is waited out past the retries, the
// caller hears of every wait, and a failure that is no rate limit has its bounded retries.
import { describe, expect, it } from 'vitest';
import { APIConnectionTimeoutError, InternalServerError } from 'openai';
import type { Script } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { createChatClient, limitedClient, RateLimiter, resolveEndpoint, type WaitTracker } from '@hermes-datagen/core/endpoint';

async function clientOf(script: Script, limits: { rpm?: number; retries?: number } = {}) {
  const endpoint = await scriptedEndpoint({ script });
  const resolved = await resolveEndpoint({ baseUrl: endpoint.url, model: 'm' }, { env: { HERMES_API_KEY: 'sk-hermes-FAKE-limited-1111' }, cwd: process.cwd() });
  const limiter = new RateLimiter({ maxConcurrency: 4, quotaWaitMs: 60_000, rpm: limits.rpm });
  const client = limitedClient(createChatClient(resolved, { maxRetries: 0 }), limiter, { retries: limits.retries ?? 0 });
  return { client, limiter };
}

const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'hello' }] };

/** Counts the waits it hears of, and checks they nest. */
function tracker(): WaitTracker & { begun: number; open: number } {
  return {
    begun: 0,
    open: 0,
    begin() {
      this.begun += 1;
      this.open += 1;
    },
    end() {
      this.open -= 1;
      expect(this.open).toBeGreaterThanOrEqual(0);
    },
  };
}

describe('limitedClient', () => {
  it('a wait for the limiter is not part of the attempt: a call that waits a second for its slot passes a 300 ms timeout', async () => {
    const { client } = await clientOf({}, { rpm: 60 });
    const waits = tracker();
    const started = Date.now();
    await client.chat.completions.create(ask, { timeout: 300 });
    // --rpm 60: the second starts a second after the first.
    await client.chat.completions.create(ask, { timeout: 300, waits });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(waits.begun).toBe(1);
    expect(waits.open).toBe(0);
  });

  it('waits out rate-limit refusals past its retries (here none): four 429s in a row, then the answer', async () => {
    const { client, limiter } = await clientOf({ faults: [{ kind: 'rate_limit', when: { nth: [1, 2, 3, 4] }, retry_after_ms: 10 }] });
    const waits = tracker();
    const reply = await client.chat.completions.create(ask, { waits });
    expect(reply.choices[0]?.message).toBeDefined();
    expect(limiter.stats).toMatchObject({ requests: 5, rateLimited: 4 });
    // A wait for each permit and each Retry-After.
    expect(waits.begun).toBe(9);
    expect(waits.open).toBe(0);
  });

  it('gives a failure that is no rate limit its bounded retries, then throws it', async () => {
    const { client, limiter } = await clientOf({ faults: [{ kind: 'server_error' }] }, { retries: 2 });
    await expect(client.chat.completions.create(ask)).rejects.toBeInstanceOf(InternalServerError);
    expect(limiter.stats.requests).toBe(3);
  });

  it('times out an attempt that never answers after its timeout, and retries that at most twice (each costs a whole timeout)', async () => {
    const { client, limiter } = await clientOf({ faults: [{ kind: 'timeout' }] }, { retries: 5 });
    await expect(client.chat.completions.create(ask, { timeout: 200 })).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(limiter.stats.requests).toBe(3);
  });
});
