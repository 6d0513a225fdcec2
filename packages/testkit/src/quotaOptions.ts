// serve's quota flags (quota.ts): a gateway's rate limits, for testing a client against them.
import { UsageError, type Argv } from '@hermes-datagen/core';
import { LIMIT_HEADER_STYLES, RETRY_AFTER_STYLES, type LimitHeaderStyle, type QuotaOptions, type RetryAfterStyle } from './quota.js';

const QUOTA = "Quota (a gateway's rate limits; refusals are 429s, answered at once):";

export function quotaOptions<T>(y: Argv<T>) {
  return y
    .option('rps', { type: 'number', describe: 'requests a second at most: a token bucket one second deep', group: QUOTA })
    .option('rpm', { type: 'number', describe: 'requests a minute at most (as --rps rpm/60)', group: QUOTA })
    .option('tpm', {
      type: 'number',
      describe: "tokens a minute at most, about 4 characters a token of a request's messages (a bucket one second deep)",
      group: QUOTA,
    })
    .option('rate-429', { type: 'number', describe: 'share of requests (0-1) refused at random, whatever the buckets hold', group: QUOTA })
    .option('retry-after-s', {
      type: 'number',
      default: 1,
      describe: 'seconds a random 429 asks to wait (a bucket asks for the time until it has room)',
      group: QUOTA,
    })
    .option('limit-headers', {
      choices: LIMIT_HEADER_STYLES,
      default: 'none' as LimitHeaderStyle,
      describe:
        "budget headers on every answer: OpenAI's x-ratelimit-*, Anthropic's anthropic-ratelimit-*, LiteLLM's x-ratelimit-api_key-* and x-litellm-key-remaining-*-<model> (litellm also counts the quota as LiteLLM does: in fixed windows, see --window-s)",
      group: QUOTA,
    })
    .option('window-s', {
      type: 'number',
      default: 60,
      describe:
        "with --limit-headers litellm: LiteLLM's fixed window (its LITELLM_RATE_LIMIT_WINDOW_SIZE), begun by the first request after the last one ended and holding the window's worth of --rps/--rpm/--tpm; a 429's Retry-After is the whole window",
      group: QUOTA,
    })
    .option('retry-after', {
      choices: RETRY_AFTER_STYLES,
      default: 'seconds' as RetryAfterStyle,
      describe: 'how a 429 says when to come back: Retry-After in seconds or as an HTTP date, "try again in 1.2s" in the body, or not at all',
      group: QUOTA,
    });
}

export interface QuotaArgs {
  rps?: number | undefined;
  rpm?: number | undefined;
  tpm?: number | undefined;
  'rate-429'?: number | undefined;
  'retry-after-s': number;
  'limit-headers': LimitHeaderStyle;
  'window-s': number;
  'retry-after': RetryAfterStyle;
}

export function quotaFromArgs(args: QuotaArgs): QuotaOptions {
  for (const flag of ['rps', 'rpm', 'tpm'] as const) {
    const value = args[flag];
    if (value !== undefined && !(value > 0 && Number.isFinite(value))) throw new UsageError(`--${flag} must be a number above 0, got ${String(value)}`);
  }
  if (args.rps !== undefined && args.rpm !== undefined) throw new UsageError('--rps and --rpm are the same limit: give one');
  const rate = args['rate-429'];
  if (rate !== undefined && !(rate >= 0 && rate <= 1)) throw new UsageError(`--rate-429 must be a share from 0 to 1, got ${String(rate)}`);
  if (!(args['window-s'] > 0 && Number.isFinite(args['window-s'])))
    throw new UsageError(`--window-s must be a number of seconds above 0, got ${String(args['window-s'])}`);
  if (!(args['retry-after-s'] >= 0)) throw new UsageError(`--retry-after-s must be a number of seconds from 0 up, got ${String(args['retry-after-s'])}`);
  return {
    rps: args.rps ?? (args.rpm === undefined ? undefined : args.rpm / 60),
    tpm: args.tpm,
    rate429: rate,
    randomWaitS: args['retry-after-s'],
    limitHeaders: args['limit-headers'],
    windowS: args['window-s'],
    retryAfter: args['retry-after'],
  };
}
