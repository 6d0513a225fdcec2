// How long a refusal asks to wait and what budgets a response reports, in each dialect.
import { describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { headerRetryAfterMs } from '@hermes-datagen/core/internal/chatClient.js';
import { bodyHintMs, budgetHeaders, durationMs, readBudgets, retryHintMs } from '@hermes-datagen/core/internal/rateLimitHints.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('retry hints', () => {
  it('reads retry-after-ms, then Retry-After as seconds or an HTTP date', () => {
    expect(headerRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW)).toBe(250);
    expect(headerRetryAfterMs(new Headers({ 'retry-after': '3' }), NOW)).toBe(3000);
    expect(headerRetryAfterMs(new Headers({ 'retry-after': 'Tue, 01 Dec 2026 12:00:20 GMT' }), NOW)).toBe(20_000);
    expect(headerRetryAfterMs(new Headers(), NOW)).toBeUndefined();
  });

  it('reads the words of a body: "try again in 20s", "Please retry after 60 seconds", "1m30s", and nothing from other text', () => {
    expect(bodyHintMs('Rate limit reached for gpt-4o. Please try again in 20s.')).toBe(20_000);
    expect(bodyHintMs('Please try again in 6.5 seconds')).toBe(6500);
    expect(bodyHintMs('Please retry after 60 seconds')).toBe(60_000);
    expect(bodyHintMs('try again in 1m30s')).toBe(90_000);
    expect(bodyHintMs('try again in 250ms')).toBe(250);
    expect(bodyHintMs('try again later')).toBeUndefined();
    expect(bodyHintMs('Rate limit reached')).toBeUndefined();
  });

  it("takes the headers first, then an OpenRouter body's reset, then the body's words", () => {
    const openRouter = APIError.generate(
      429,
      { error: { code: 429, message: 'Rate limit exceeded: free-models-per-min.', metadata: { headers: { 'X-RateLimit-Reset': String(NOW + 42_000) } } } },
      undefined,
      new Headers(),
    );
    expect(retryHintMs(openRouter, NOW)).toBe(42_000);
    const words = APIError.generate(429, { error: { message: 'Please retry after 60 seconds' } }, undefined, new Headers());
    expect(retryHintMs(words, NOW)).toBe(60_000);
    const both = APIError.generate(429, { error: { message: 'try again in 20s' } }, undefined, new Headers({ 'retry-after': '3' }));
    expect(retryHintMs(both, NOW)).toBe(3000);
    expect(retryHintMs(APIError.generate(429, { error: { message: 'slow down' } }, undefined, new Headers()), NOW)).toBeUndefined();
  });
});

describe('budget headers', () => {
  it('reads OpenAI-style durations', () => {
    expect(['1s', '6m0s', '20ms', '1h2m', '0.5', 'soon', '1x'].map((text) => durationMs(text))).toEqual([
      1000,
      360_000,
      20,
      3_720_000,
      500,
      undefined,
      undefined,
    ]);
  });

  it('reads each dialect: OpenAI with and without a reset, Anthropic with an RFC 3339 reset, LiteLLM by the model', () => {
    const dialects = budgetHeaders('gpt-x');
    const read = (headers: Record<string, string>) => readBudgets(new Headers(headers), dialects, NOW);
    expect(read({ 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-reset-requests': '1s' })).toEqual([
      { kind: 'requests', remaining: 59, limit: 60, resetMs: 1000 },
    ]);
    expect(read({ 'x-ratelimit-remaining-tokens': '100' })).toEqual([{ kind: 'tokens', remaining: 100, limit: undefined, resetMs: undefined }]);
    expect(
      read({
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': '2026-12-01T12:00:02Z',
      }),
    ).toEqual([{ kind: 'requests', remaining: 0, limit: 50, resetMs: 2000 }]);
    expect(read({ 'x-litellm-key-remaining-requests-gpt-x': '7', 'x-litellm-key-remaining-tokens-gpt-x': '900' })).toEqual([
      { kind: 'requests', remaining: 7, limit: undefined, resetMs: undefined },
      { kind: 'tokens', remaining: 900, limit: undefined, resetMs: undefined },
    ]);
    expect(read({ 'x-litellm-key-remaining-requests-other': '7', 'x-ratelimit-remaining-requests': 'many' })).toEqual([]);
  });

  it("reads LiteLLM's proxy limits by what they are set on: a remaining count and a limit, no reset", () => {
    const read = (headers: Record<string, string>) => readBudgets(new Headers(headers), budgetHeaders(undefined), NOW);
    expect(read({ 'x-ratelimit-api_key-remaining-requests': '99', 'x-ratelimit-api_key-limit-requests': '100' })).toEqual([
      { kind: 'requests', remaining: 99, limit: 100, resetMs: undefined, window: 'litellm api_key' },
    ]);
    expect(
      read({ 'x-ratelimit-team-remaining-tokens': '5000', 'x-ratelimit-team-limit-tokens': '9000', 'x-ratelimit-model_per_key-remaining-requests': '3' }),
    ).toEqual([
      { kind: 'tokens', remaining: 5000, limit: 9000, resetMs: undefined, window: 'litellm team' },
      { kind: 'requests', remaining: 3, limit: undefined, resetMs: undefined, window: 'litellm model_per_key' },
    ]);
  });
});
