// The model client: in run mode the endpoint's client behind the one RateLimiter, so every agent and
// sub-agent of the process shares one budget and one view of the provider's limits; in stream mode
// the plain client with its own bounded retries.
import { createChatClient, DEFAULT_CHAT_MAX_RETRIES, DEFAULT_RETRY_AFTER_CAP_MS, type Endpoint } from '@hermes-datagen/core/endpoint';
import type { Logger } from '@hermes-datagen/core';
import type { ChatClient } from '../agentLoop.js';
import { limitedClient } from './limitedClient.js';
import { RateLimiter } from './rateLimiter.js';

export interface ModelClientOptions {
  /** Prompts run at once: as many connections, and the most requests in flight. */
  readonly concurrency: number;
  /** Run mode's limits; none in stream mode. */
  readonly limits?: { readonly rpm?: number | undefined; readonly tpm?: number | undefined; readonly quotaWaitMs: number } | undefined;
  readonly log: Logger;
  /** The quota stayed exhausted through the pause: the run should stop (resumably). */
  readonly onExhausted: (reason: string) => void;
}

export interface ModelClient {
  readonly client: ChatClient;
  readonly limiter?: RateLimiter | undefined;
}

export function modelClient(endpoint: Endpoint, options: ModelClientOptions): ModelClient {
  const { limits } = options;
  if (limits === undefined) return { client: createChatClient(endpoint, { maxConnections: options.concurrency }) };
  const limiter = new RateLimiter({
    ...limits,
    maxConcurrency: options.concurrency,
    retryAfterCapMs: DEFAULT_RETRY_AFTER_CAP_MS,
    onPause: (message) => options.log.warn(message, undefined, 'rate-limit-pause'),
    onExhausted: options.onExhausted,
  });
  // The limiter makes the retries and reads the provider's real Retry-After (the client's cap bounds only its own retries).
  const inner = createChatClient(endpoint, { maxConnections: options.concurrency, maxRetries: 0 });
  return { client: limitedClient(inner, limiter, { retries: DEFAULT_CHAT_MAX_RETRIES }), limiter };
}
