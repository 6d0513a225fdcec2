// The model client of a process behind its one RateLimiter: each attempt (first call and retries
// alike) waits for a permit, and what comes back (status, budget headers, usage, a refusal and how
// long it asks to wait) goes to the limiter. The retries are made here, so a wait never counts
// against the request timeout, which covers one HTTP attempt alone; the wrapped client makes none
// of its own (maxRetries: 0), so the limiter sees every real answer.
// - A rate-limit refusal (rateLimitHints.ts isRateLimitRefusal) is no failure: the call waits (its
//   Retry-After or body hint, else a backoff) and goes on, for as long as the limiter does not give up.
// - Any other retryable failure (408/409, 5xx, a dropped connection, a reply cut short) has `retries`
//   retries; an attempt that got no answer in time at most 2 (each costs a whole --request-timeout).
// The caller's `waits` is told when the call starts and stops waiting, so a clock of the caller's
// own work (--prompt-timeout) can stop meanwhile.
import { APIConnectionTimeoutError, APIError } from 'openai/core/error';
import { clientRetries, headerRetryAfterMs, type ChatClient, type EndpointChatClient, type WaitTracker } from './chatClient.js';
import { isRateLimitRefusal, retryHintMs } from './rateLimitHints.js';
import type { RateLimiter } from './rateLimiter.js';

/** Retries of a failure that is not a rate limit: a storm of 5xx and dropped connections at 23% of calls leaves 0.06% of calls failed after five. */
export const DEFAULT_RETRIES = 5;
/** Of them, for an attempt that got no answer within its timeout: each costs a whole --request-timeout. */
const TIMEOUT_RETRIES = 2;
/** The longest a 5xx's Retry-After may hold its retry back (a refusal's is the limiter's to judge). */
const SERVER_RETRY_AFTER_CAP_MS = 30_000;

type CreateParams = Parameters<ChatClient['chat']['completions']['create']>;

export interface LimitedClientOptions {
  /** Retries of a failure that is not a rate-limit refusal. */
  readonly retries: number;
}

export function limitedClient(inner: EndpointChatClient, limiter: RateLimiter, options: LimitedClientOptions): ChatClient {
  const create = async (body: CreateParams[0], requestOptions: CreateParams[1] = {}) => {
    const signal = requestOptions.signal ?? new AbortController().signal;
    const waits = requestOptions.waits;
    const estimate = limiter.countsTokens ? estimateTokens(body) : 0;
    // The same for every attempt, and of one shape for every call (a spread copy would take the caller's).
    const attemptOptions = { signal, timeout: requestOptions.timeout, headers: requestOptions.headers, maxRetries: 0 };
    let failures = 0;
    let timeouts = 0;
    let refusals = 0;
    for (;;) {
      const permit = await waiting(waits, () => limiter.acquire(estimate, signal));
      let wait: number;
      try {
        const { data, status, headers } = await inner.chat.completions.create(body, attemptOptions).withResponse();
        limiter.release(permit, { status, headers, tokens: usageTokens(data) });
        return data;
      } catch (error) {
        const answered = error instanceof APIError ? error : undefined;
        const refused = answered !== undefined && isRateLimitRefusal(answered);
        const retryAfterMs = refused ? retryHintMs(answered, Date.now()) : undefined;
        limiter.release(permit, { status: answered?.status, headers: answered?.headers, refused, retryAfterMs });
        if (signal.aborted) throw error;
        if (refused) {
          wait = limiter.refusalWaitMs(retryAfterMs, refusals);
          refusals += 1;
        } else {
          if (error instanceof APIConnectionTimeoutError) timeouts += 1;
          if (failures >= options.retries || timeouts > TIMEOUT_RETRIES || !clientRetries(error)) throw error;
          const asked = answered?.headers === undefined ? undefined : headerRetryAfterMs(answered.headers, Date.now());
          wait = Math.min(asked ?? limiter.backoffMs(failures), SERVER_RETRY_AFTER_CAP_MS);
          failures += 1;
        }
      }
      await waiting(waits, () => limiter.retryWait(wait, signal));
    }
  };
  return { chat: { completions: { create } } };
}

async function waiting<T>(waits: WaitTracker | undefined, wait: () => Promise<T>): Promise<T> {
  waits?.begin();
  try {
    return await wait();
  } finally {
    waits?.end();
  }
}

/** About 4 characters a token, over what is sent; only --tpm needs it, and only as a first guess. */
function estimateTokens(body: CreateParams[0]): number {
  let chars = 0;
  for (const message of body.messages) chars += typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content ?? '').length;
  return Math.ceil(chars / 4) + 16 * body.messages.length;
}

function usageTokens(data: unknown): number | undefined {
  const total = (data as { usage?: { total_tokens?: unknown } } | null)?.usage?.total_tokens;
  return typeof total === 'number' ? total : undefined;
}
