// The model client: in run mode the endpoint's client behind the process's one RateLimiter (core),
// so every agent and sub-agent shares one budget and one view of the provider's limits; in stream
// mode the plain client with its own bounded retries.
import { createChatClient, DEFAULT_RETRIES, limitedClient, RateLimiter, type Endpoint } from '@hermes-datagen/core/endpoint';
import type { Logger } from '@hermes-datagen/core';
import type { ChatClient } from '../agentLoop.js';

export interface ModelClientOptions {
  /** Prompts run at once: as many connections, and the most requests in flight. */
  readonly concurrency: number;
  /** Run mode's limits; none in stream mode. */
  readonly limits?: { readonly rpm?: number | undefined; readonly tpm?: number | undefined; readonly quotaWaitMs: number } | undefined;
  readonly log: Logger;
  /** The run has had no successful call for --quota-wait, or was asked to wait longer: it should stop (resumably). */
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
    model: endpoint.model,
    onPause: (message) => options.log.warn(message, undefined, 'rate-limit-pause'),
    onExhausted: options.onExhausted,
  });
  // The limiter makes the retries and reads every real answer (the client's own retries would hide them).
  const inner = createChatClient(endpoint, { maxConnections: options.concurrency, maxRetries: 0 });
  return { client: limitedClient(inner, limiter, { retries: DEFAULT_RETRIES }), limiter };
}
