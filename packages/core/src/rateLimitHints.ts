// What an endpoint says of its rate limit, in each dialect in use, read into one shape for the
// limiter (rateLimiter.ts):
// - budgets, from the headers of any answer: OpenAI's x-ratelimit-{limit,remaining,reset}-{requests,tokens}
//   (a reset as a duration, "6m0s"; remaining alone is read too), Anthropic's
//   anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset} (a reset as an RFC 3339 time), and
//   LiteLLM's x-ratelimit-<scope>-{remaining,limit}-{requests,tokens} (a limit a fixed window, no
//   reset: fixedWindow.ts) and x-litellm-key-remaining-{requests,tokens}-<model> (remaining alone);
// - how long a refusal asks to wait: retry-after-ms, Retry-After as seconds or an HTTP date, the
//   reset (epoch ms) an OpenRouter 429 body carries in error.metadata.headers, and the body's own
//   words ("try again in 20s", "Please retry after 60 seconds").
// Which refusals are rate limits at all is isRateLimitRefusal's: the one seam where an error-dialect
// table tells a billing 429 (needs a fix) from a rate limit (wait and go on).
import type { APIError } from 'openai/core/error';
import { headerRetryAfterMs, type ResponseHeaders } from './chatClient.js';
import { readGatewayError } from './gatewayErrors.js';
import { isPlainObject } from './plainObject.js';

export type BudgetKind = 'requests' | 'tokens';

/** One budget as a response reported it. */
export interface BudgetReading {
  readonly kind: BudgetKind;
  readonly remaining: number;
  /** The budget's size, when the dialect says. */
  readonly limit?: number | undefined;
  /** Until the budget is full again, in ms from now, when the dialect says. */
  readonly resetMs?: number | undefined;
  /** The fixed window the budget is counted in, when the dialect counts in windows (LiteLLM: one a scope, for its requests and tokens). */
  readonly window?: string;
}

interface BudgetHeaders {
  readonly kind: BudgetKind;
  readonly remaining: string;
  readonly limit?: string;
  readonly reset?: string;
  readonly window?: string;
}

/** The header names of each dialect, spelled out once: every response is looked up by them. */
const FIXED_DIALECTS: readonly BudgetHeaders[] = [
  { kind: 'requests', remaining: 'x-ratelimit-remaining-requests', limit: 'x-ratelimit-limit-requests', reset: 'x-ratelimit-reset-requests' },
  { kind: 'tokens', remaining: 'x-ratelimit-remaining-tokens', limit: 'x-ratelimit-limit-tokens', reset: 'x-ratelimit-reset-tokens' },
  {
    kind: 'requests',
    remaining: 'anthropic-ratelimit-requests-remaining',
    limit: 'anthropic-ratelimit-requests-limit',
    reset: 'anthropic-ratelimit-requests-reset',
  },
  { kind: 'tokens', remaining: 'anthropic-ratelimit-tokens-remaining', limit: 'anthropic-ratelimit-tokens-limit', reset: 'anthropic-ratelimit-tokens-reset' },
  // LiteLLM's proxy names each of its limits by what it is set on (parallel_request_limiter_v3's descriptors).
  ...['api_key', 'user', 'team', 'team_member', 'end_user', 'model_per_key'].flatMap((scope) =>
    (['requests', 'tokens'] as const).map((kind) => ({
      kind,
      remaining: `x-ratelimit-${scope}-remaining-${kind}`,
      limit: `x-ratelimit-${scope}-limit-${kind}`,
      window: `litellm ${scope}`,
    })),
  ),
];

/** The headers a response may carry its budgets in; LiteLLM's names end in the model group (the model asked for). */
export function budgetHeaders(model: string | undefined): readonly BudgetHeaders[] {
  if (model === undefined) return FIXED_DIALECTS;
  return [
    ...FIXED_DIALECTS,
    { kind: 'requests', remaining: `x-litellm-key-remaining-requests-${model}` },
    { kind: 'tokens', remaining: `x-litellm-key-remaining-tokens-${model}` },
  ];
}

/** The budgets a response reports, in the dialects given (budgetHeaders). */
export function readBudgets(headers: ResponseHeaders, dialects: readonly BudgetHeaders[], now: number): BudgetReading[] {
  const readings: BudgetReading[] = [];
  for (const dialect of dialects) {
    const remaining = number(headers.get(dialect.remaining));
    if (remaining === undefined) continue;
    const limit = dialect.limit === undefined ? undefined : number(headers.get(dialect.limit));
    const resetText = dialect.reset === undefined ? null : headers.get(dialect.reset);
    const reading = { kind: dialect.kind, remaining, limit, resetMs: resetText === null ? undefined : resetMs(resetText, now) };
    readings.push(dialect.window === undefined ? reading : { ...reading, window: dialect.window });
  }
  return readings;
}

/** A reset: an OpenAI-style duration ("1s", "6m0s", "20ms", plain seconds) or a time (RFC 3339), in ms from now. */
export function resetMs(text: string, now: number): number | undefined {
  const duration = durationMs(text);
  if (duration !== undefined) return duration;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** OpenAI-style durations: "1s", "6m0s", "20ms", "1h2m", or plain seconds. */
export function durationMs(text: string | null): number | undefined {
  if (text === null) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  const unit = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
  return parts.reduce((sum, [, n, u]) => sum + Number.parseFloat(n!) * unit[u as keyof typeof unit], 0);
}

/**
 * Whether a refusal is a rate limit: wait and go on, whatever its retries. Every 429 is, but one the
 * gateway-error table says needs a fix (gatewayErrors.ts: a billing 429, insufficient_quota): that one
 * fails the call at once, and tells the limiter nothing of the rate the endpoint can take.
 */
export function isRateLimitRefusal(error: APIError): boolean {
  return error.status === 429 && readGatewayError(429, { error: error.error })?.retry !== false;
}

/** How long a refusal asks to wait, in ms from now: its headers, else its body; undefined when it does not say. */
export function retryHintMs(error: APIError, now: number): number | undefined {
  const fromHeaders = error.headers === undefined ? undefined : headerRetryAfterMs(error.headers, now);
  return fromHeaders ?? openRouterResetMs(error.error, now) ?? bodyHintMs(error.message);
}

/** OpenRouter's 429: {"error":{"code":429,"metadata":{"headers":{"X-RateLimit-Reset":"<epoch ms>"}}}}. */
function openRouterResetMs(inner: unknown, now: number): number | undefined {
  if (!isPlainObject(inner) || !isPlainObject(inner['metadata'])) return undefined;
  const headers = inner['metadata']['headers'];
  if (!isPlainObject(headers)) return undefined;
  const reset = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-ratelimit-reset')?.[1];
  const at = Number(reset);
  if (!Number.isFinite(at) || at <= 0) return undefined;
  // Epoch milliseconds as OpenRouter sends them; a value in seconds would be decades ago.
  return Math.max(0, (at < 1e11 ? at * 1000 : at) - now);
}

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  millisecond: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
};

/** "try again in 20s", "try again in 6.5 seconds", "Please retry after 60 seconds", "retry in 1m30s". */
export function bodyHintMs(text: string): number | undefined {
  const match = /(?:try again|retry)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\s*)+)/i.exec(text);
  if (match === null) return undefined;
  let total = 0;
  for (const [, value, unit] of match[1]!.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const name = unit!.toLowerCase();
    const ms = UNIT_MS[name] ?? UNIT_MS[name.replace(/s$/, '')];
    if (ms === undefined) return undefined;
    total += Number.parseFloat(value!) * ms;
  }
  return total;
}

function number(text: string | null): number | undefined {
  if (text === null) return undefined;
  const value = Number.parseFloat(text);
  return Number.isFinite(value) ? value : undefined;
}
