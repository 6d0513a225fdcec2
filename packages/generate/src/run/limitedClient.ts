// The model client seen by every agent of a run, through the one RateLimiter: each attempt (first
// call and retries alike) waits for a permit, and what comes back (status, rate-limit headers,
// usage) goes to the limiter. The retries are made here, with jittered exponential backoff, so a
// wait for a permit never counts against the request timeout, which covers the HTTP call alone;
// the wrapped client makes no retries of its own (maxRetries: 0), so the limiter sees a provider's
// real Retry-After and can tell a rate limit from an exhausted quota.
import { setTimeout as delay } from 'node:timers/promises';
import { APIError } from 'openai/core/error';
import { clientRetries, type ChatClient, type EndpointChatClient } from '@hermes-datagen/core/endpoint';
import type { RateLimiter } from './rateLimiter.js';

/** Attempts after the first, like the client's default. */
export const DEFAULT_RETRIES = 2;

type CreateParams = Parameters<ChatClient['chat']['completions']['create']>;

export interface LimitedClientOptions {
  readonly retries: number;
  /** Waits before a retry; replaced by a fake in tests. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export function limitedClient(inner: EndpointChatClient, limiter: RateLimiter, options: LimitedClientOptions): ChatClient {
  const sleep = options.sleep ?? ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }));
  const create = async (body: CreateParams[0], requestOptions: CreateParams[1] = {}) => {
    const signal = requestOptions.signal ?? new AbortController().signal;
    const estimate = limiter.countsTokens ? estimateTokens(body) : 0;
    // The same for every attempt, and of one shape for every call (a spread copy would take the caller's).
    const attemptOptions = { signal, timeout: requestOptions.timeout, headers: requestOptions.headers, maxRetries: 0 };
    for (let attempt = 0; ; attempt += 1) {
      const permit = await limiter.acquire(estimate, signal);
      try {
        const { data, status, headers } = await inner.chat.completions.create(body, attemptOptions).withResponse();
        limiter.release(permit, { status, headers, tokens: usageTokens(data) });
        return data;
      } catch (error) {
        // The seam where a refusal is classed before any retry (core clientRetries, from the gateway-error
        // table): one that needs a fix (a billing 429, insufficient_quota) is thrown at once, and told to the
        // limiter as no answer at all, for it says nothing about the rate the endpoint can take.
        const retries = clientRetries(error);
        const rateSignal = error instanceof APIError && (retries || error.status !== 429);
        limiter.release(permit, rateSignal ? { status: error.status, headers: error.headers } : {});
        if (attempt >= options.retries || !retries || signal.aborted) throw error;
        await sleep(limiter.backoffMs(attempt), signal);
      }
    }
  };
  return { chat: { completions: { create } } };
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
