import { describe, expect, it } from 'vitest';
import { ExitCode } from '@hermes-datagen/core';
import { Quota, type QuotaOptions } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { spec } from '@hermes-datagen/testkit/internal/main.js';
import { serveInProcess } from './endpoint.js';
import { runInProcess } from '../util/cli.js';

async function post(url: string, model = 'm'): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  });
}

/** A quota on a clock the test moves. */
function clocked(options: QuotaOptions): { quota: Quota; at: { now: number } } {
  const at = { now: 1_000_000 };
  return { quota: new Quota({ ...options, now: () => at.now }), at };
}

describe('testkit quota', () => {
  it('--rps: a bucket one second deep that refuses at once when empty and refills at the rate', () => {
    const { quota, at } = clocked({ rps: 4 });
    const answers = Array.from({ length: 6 }, () => quota.admit('m', 20).refused);
    expect(answers).toEqual([false, false, false, false, true, true]);
    at.now += 500;
    expect([quota.admit('m', 20).refused, quota.admit('m', 20).refused, quota.admit('m', 20).refused]).toEqual([false, false, true]);
  });

  it("--limit-headers litellm counts as LiteLLM's proxy does: fixed windows, each begun by the first request after the last one ended", () => {
    const { quota, at } = clocked({ rps: 2, windowS: 10, limitHeaders: 'litellm', retryAfter: 'seconds' });
    const remaining = (admission: ReturnType<Quota['admit']>) => admission.headers['x-ratelimit-api_key-remaining-requests'];
    // 20 requests a window of 10 s, however fast they come.
    const first = Array.from({ length: 20 }, () => quota.admit('m', 1));
    expect(first.map((a) => a.refused)).toEqual(Array(20).fill(false));
    expect([remaining(first[0]!), remaining(first[19]!)]).toEqual(['19', '0']);
    // Refused with the window's whole length as Retry-After, 3 s before its end, and none of the budget headers.
    at.now += 7000;
    const refused = quota.admit('m', 1);
    expect(refused).toMatchObject({ refused: true, headers: { 'retry-after': '10' } });
    expect(remaining(refused)).toBeUndefined();
    // The window ends 10 s after its first request; the next begins only with the next request, 5 s later.
    at.now += 8000;
    expect(remaining(quota.admit('m', 1))).toBe('19');
    at.now += 9999;
    expect(remaining(quota.admit('m', 1))).toBe('18');
    at.now += 1;
    expect(remaining(quota.admit('m', 1))).toBe('19');
  });

  it('--tpm: a request of more tokens than are left is refused, and gives its request back', () => {
    const { quota } = clocked({ tpm: 6000, rps: 10 });
    // 100 tokens a second deep; 400 characters are 100 tokens.
    expect(quota.admit('m', 400).refused).toBe(false);
    expect(quota.admit('m', 40).refused).toBe(true);
  });

  it('--rate-429: about that share refused at random, the same each time for a seed', () => {
    const draw = (seed: number) => {
      const { quota } = clocked({ rate429: 0.1, seed });
      return Array.from({ length: 2000 }, () => quota.admit('m', 1).refused);
    };
    const refused = draw(3).filter(Boolean).length;
    expect(refused).toBeGreaterThan(150);
    expect(refused).toBeLessThan(250);
    expect(draw(3)).toEqual(draw(3));
    expect(draw(4)).not.toEqual(draw(3));
  });

  it.each([
    ['openai', { 'x-ratelimit-limit-requests': '2', 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-reset-requests': '500ms' }],
    [
      'litellm',
      // A window of 1 s holds 2 requests at --rps 2.
      { 'x-ratelimit-api_key-limit-requests': '2', 'x-ratelimit-api_key-remaining-requests': '1', 'x-litellm-key-remaining-requests-gpt-x': '1' },
    ],
  ] as const)('--limit-headers %s: the budget on every answer', async (style, expected) => {
    const endpoint = await scriptedEndpoint({ quota: { rps: 2, limitHeaders: style, windowS: 1 } });
    const response = await post(endpoint.url, 'gpt-x');
    expect(response.status).toBe(200);
    for (const [name, value] of Object.entries(expected)) expect(response.headers.get(name), name).toBe(value);
  });

  it('--limit-headers anthropic: limit, remaining, and the reset as an RFC 3339 time', async () => {
    const endpoint = await scriptedEndpoint({ quota: { rps: 2, limitHeaders: 'anthropic' } });
    const before = Date.now();
    const response = await post(endpoint.url);
    expect(response.headers.get('anthropic-ratelimit-requests-limit')).toBe('2');
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('1');
    const reset = Date.parse(response.headers.get('anthropic-ratelimit-requests-reset') ?? '');
    expect(reset).toBeGreaterThanOrEqual(before + 400);
  });

  it.each([
    ['seconds', (r: Response) => expect(r.headers.get('retry-after')).toBe('1')],
    ['date', (r: Response) => expect(Date.parse(r.headers.get('retry-after') ?? '')).toBeGreaterThan(Date.now() - 1000)],
    ['none', (r: Response) => expect(r.headers.get('retry-after')).toBeNull()],
  ] as const)('--retry-after %s: how a refusal says when to come back', async (style, check) => {
    const endpoint = await scriptedEndpoint({ quota: { rps: 1, retryAfter: style } });
    expect((await post(endpoint.url)).status).toBe(200);
    const refused = await post(endpoint.url);
    expect(refused.status).toBe(429);
    check(refused);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    expect(endpoint.stats).toMatchObject({ requests: 2, answered: 1, refused: 1 });
  });

  it('--retry-after body: "Please try again in …" in the message and no header', async () => {
    const endpoint = await scriptedEndpoint({ quota: { rps: 1, retryAfter: 'body' } });
    await post(endpoint.url);
    const refused = await post(endpoint.url);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/Please try again in \d+(ms|(\.\d+)?s)\./);
  });

  it('serve takes the quota flags, refuses bad ones, and reports its stats when stopped', async () => {
    const serve = await serveInProcess(['--rps', '1', '--limit-headers', 'openai', '--retry-after', 'none']);
    const { url } = serve;
    expect((await post(url)).status).toBe(200);
    const refused = await post(url);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(await serve.stop()).toBe(ExitCode.terminated);
    expect(serve.stderr()).toContain('stats: {"requests":2,"answered":1,"refused":1}');
    for (const [flags, message] of [
      [['--rps', '0'], /--rps must be a number above 0/],
      [['--rate-429', '2'], /--rate-429 must be a share from 0 to 1/],
      [['--rps', '1', '--rpm', '60'], /--rps and --rpm are the same limit/],
      [['--limit-headers', 'azure'], /limit-headers/],
      [['--limit-headers', 'litellm', '--window-s', '0'], /--window-s must be a number of seconds above 0/],
    ] as const) {
      const bad = await runInProcess(spec, ['serve', ...flags]);
      expect(bad.code, bad.stderr).toBe(ExitCode.usage);
      expect(bad.stderr).toMatch(message);
    }
  });
});
