// --strategy llm reaches the model through the one endpoint every hermes-* CLI resolves (flags >
// environment > --config providers), so the summariser can never use another key or URL than the
// generator. The endpoint is resolved before any record is read.
import { CostMeter, loadPrices, meteredClient, type PricesArgs, type RunContext } from '@hermes-datagen/core';
import {
  createChatClient,
  DEFAULT_QUOTA_WAIT_S,
  describeEndpoint,
  limitedClient,
  RateLimiter,
  resolveEndpoint,
  type EndpointArgs,
} from '@hermes-datagen/core/endpoint';
import type { CompressConfig } from './config.js';
import { llmSummarizer, type Summarizer } from './summarizer.js';

export interface EndpointSummarizer {
  readonly summarizer: Summarizer;
  readonly model: string;
  /** What the summary calls cost, with --prices (or the gateway's own figure). */
  readonly cost: CostMeter;
}

export async function endpointSummarizer(args: EndpointArgs & PricesArgs, ctx: RunContext, config: CompressConfig): Promise<EndpointSummarizer> {
  const endpoint = await resolveEndpoint(args, ctx.io);
  for (const warning of endpoint.warnings) ctx.log.warn(warning.message);
  ctx.log.info(`summaries from ${describeEndpoint(endpoint)}`);
  // Attempts and backoff are the summariser's own (upstream's loop), so the client does not retry.
  // The per-record --timeout bounds the calls through the record's signal; a client timer of the same
  // length would race it and turn a timed-out record into a failed call and a fallback summary.
  // Behind the process's one rate limiter, as every model call of a hermes-* CLI: a 429 is waited
  // out there (within the record's --timeout), and the requests in flight adapt to the quota.
  const limiter = new RateLimiter({
    maxConcurrency: config.concurrency,
    quotaWaitMs: DEFAULT_QUOTA_WAIT_S * 1000,
    model: endpoint.model,
    onPause: (message) => ctx.log.warn(message, undefined, 'rate-limit-pause'),
    onExhausted: (reason) => ctx.log.error(`${reason}; the records still to summarise fall back to key_decision_extract`),
  });
  const limited = limitedClient(createChatClient(endpoint, { maxRetries: 0, maxConnections: config.concurrency }), limiter, { retries: 0 });
  const cost = new CostMeter();
  const client = meteredClient(limited, endpoint.model, loadPrices(args, ctx.io.cwd), (reply) => cost.add(reply));
  return { summarizer: llmSummarizer(client, endpoint.model, config), model: endpoint.modelId, cost };
}
