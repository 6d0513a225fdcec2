// What model calls cost, in US dollars: a price table (--prices FILE, or `prices:` in --config) of
// USD per million tokens per model id, applied to each reply's usage, or the gateway's own figure
// when the reply carries one (OpenRouter's usage.cost). A call whose model has no price has no cost:
// never a made-up number (docs/cost.md).
//
//   gpt-4.1-mini: { input: 0.40, output: 1.60, cached_input: 0.10, batch_discount: 0.5 }
import type { Argv } from 'yargs';
import type { ChatClient } from './chatClient.js';
import { loadOptionFile, optionFileError, type OptionFile } from './optionFile.js';
import { isPlainObject } from './plainObject.js';

export interface ModelPrice {
  /** USD per million prompt tokens not read from the provider's cache. */
  readonly input: number;
  /** USD per million completion tokens. */
  readonly output: number;
  /** USD per million prompt tokens read from the cache (the input price when not given). */
  readonly cached_input?: number | undefined;
  /** The share taken off for a batch-API call: 0.5 is half price (none when not given). */
  readonly batch_discount?: number | undefined;
}

/** Model id -> its price. */
export type PriceTable = ReadonlyMap<string, ModelPrice>;

/** What a price is applied to: one reply's usage as the provider reported it. */
export interface CallUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  /** Of prompt_tokens, those read from the provider's prompt cache. */
  readonly cached_tokens: number;
  /** The gateway's own figure for the call, in USD (OpenRouter's usage.cost). */
  readonly gateway_cost?: number | undefined;
}

const PRICE_KEYS = ['input', 'output', 'cached_input', 'batch_discount'] as const;

/** A --prices file: JSON or YAML, a mapping of model id to its price. */
export function readPriceFile(path: string, cwd: string, option = '--prices'): PriceTable {
  const file: OptionFile = { option, path, cwd };
  return priceTableOf(loadOptionFile(file, 'json-or-yaml'), file);
}

/** A price table from its parsed form (a --prices file, or the `prices:` of a --config file). */
export function priceTableOf(parsed: unknown, file: OptionFile, at = ''): PriceTable {
  const fail = (where: string, problem: string): never => {
    throw optionFileError(file, problem, { at: where });
  };
  if (!isPlainObject(parsed)) return fail(at, 'expected a mapping of model id to {input, output, cached_input?, batch_discount?} (USD per million tokens)');
  const table = new Map<string, ModelPrice>();
  for (const [model, price] of Object.entries(parsed)) {
    const where = at === '' ? model : `${at}.${model}`;
    if (!isPlainObject(price)) fail(where, 'expected {input, output, cached_input?, batch_discount?} (USD per million tokens)');
    const fields = price as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!(PRICE_KEYS as readonly string[]).includes(key)) fail(`${where}.${key}`, `unknown key (expected ${PRICE_KEYS.join(', ')})`);
    }
    const amount = (key: (typeof PRICE_KEYS)[number], required: boolean): number | undefined => {
      const value = fields[key];
      if (value === undefined && !required) return undefined;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        return fail(`${where}.${key}`, 'expected a number of US dollars per million tokens, 0 or more');
      return value;
    };
    const discount = fields['batch_discount'];
    if (discount !== undefined && (typeof discount !== 'number' || !(discount >= 0 && discount <= 1))) {
      fail(`${where}.batch_discount`, 'expected the share taken off batch calls, from 0 to 1 (0.5 is half price)');
    }
    table.set(model, {
      input: amount('input', true) as number,
      output: amount('output', true) as number,
      cached_input: amount('cached_input', false),
      batch_discount: discount as number | undefined,
    });
  }
  return table;
}

/**
 * A reply's usage as pricing needs it, from the reply's `usage` object: OpenAI's
 * prompt_tokens_details.cached_tokens, Anthropic-compatible cache_read_input_tokens, and a
 * gateway's own `cost`. Undefined when the reply has no usage.
 */
export function callUsageOf(usage: unknown): CallUsage | undefined {
  if (!isPlainObject(usage)) return undefined;
  const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0);
  const details = usage['prompt_tokens_details'];
  const cached = count(isPlainObject(details) ? details['cached_tokens'] : undefined) || count(usage['cache_read_input_tokens']);
  const prompt = count(usage['prompt_tokens']);
  const cost = usage['cost'];
  return {
    prompt_tokens: prompt,
    completion_tokens: count(usage['completion_tokens']),
    cached_tokens: Math.min(cached, prompt),
    ...(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? { gateway_cost: cost } : {}),
  };
}

/**
 * The cost of one call in USD: the gateway's own figure when it gave one, else the usage at the
 * price (cached prompt tokens at cached_input, a batch call less batch_discount); undefined when
 * neither is known.
 */
export function callCost(usage: CallUsage, price: ModelPrice | undefined, batch = false): number | undefined {
  if (usage.gateway_cost !== undefined) return usage.gateway_cost;
  if (price === undefined) return undefined;
  const fresh = usage.prompt_tokens - usage.cached_tokens;
  const list = fresh * price.input + usage.cached_tokens * (price.cached_input ?? price.input) + usage.completion_tokens * price.output;
  return (list / 1e6) * (batch ? 1 - (price.batch_discount ?? 0) : 1);
}

/** The price of a reply: its served model's when the table has it, else the requested model's. */
export function priceFor(table: PriceTable, requested: string, served: string | undefined): ModelPrice | undefined {
  return (served === undefined ? undefined : table.get(served)) ?? table.get(requested);
}

/** Dollars as records and statistics carry them: rounded to a billionth, so sums do not show float noise. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

export interface PricesArgs {
  prices?: string | undefined;
  config?: string | undefined;
}

/** --prices, declared once for every command that makes model calls (generate, its doctor, compress's LLM strategy). */
export function pricesOption<T>(y: Argv<T>, group: string, effect = 'records then carry metadata.cost_usd') {
  return y.option('prices', {
    type: 'string',
    describe: `model prices, JSON or YAML: model id -> {input, output, cached_input?, batch_discount?} in USD per million tokens (also \`prices:\` in --config); ${effect}`,
    group,
  });
}

/** The prices of --prices, else of the `prices:` section of --config; undefined when neither sets any. */
export function loadPrices(args: PricesArgs, cwd: string): PriceTable | undefined {
  if (args.prices !== undefined) return readPriceFile(args.prices, cwd);
  if (args.config === undefined) return undefined;
  const file: OptionFile = { option: '--config', path: args.config, cwd };
  const config = loadOptionFile(file, 'json-or-yaml');
  const section = isPlainObject(config) ? config['prices'] : undefined;
  return section === undefined || section === null ? undefined : priceTableOf(section, file, 'prices');
}

/** What one reply cost: its USD (undefined when not priced), its tokens, and the model it was priced as. */
export interface ReplyCost {
  readonly usd: number | undefined;
  readonly tokens: number;
  readonly model: string;
}

/** Prices a reply of the model `requested` (its `usage` and the `model` it says it served); `batch`: it came through a batch API. */
export function replyCost(reply: unknown, requested: string, prices: PriceTable | undefined, batch = false): ReplyCost {
  const body = isPlainObject(reply) ? reply : {};
  const served = typeof body['model'] === 'string' && body['model'] !== '' ? body['model'] : undefined;
  // A reply without usage cannot be priced: its cost is unknown, not zero.
  const usage = callUsageOf(body['usage']);
  return {
    usd: usage === undefined ? undefined : callCost(usage, prices === undefined ? undefined : priceFor(prices, requested, served), batch),
    tokens: usage === undefined ? 0 : usage.prompt_tokens + usage.completion_tokens,
    model: served ?? requested,
  };
}

/** The client for calls outside an agent (compress's summaries, doctor's probe): each reply is priced as it comes. */
export function meteredClient(inner: ChatClient, model: string, prices: PriceTable | undefined, onReply: (cost: ReplyCost) => void): ChatClient {
  return {
    chat: {
      completions: {
        create: async (body, options) => {
          const reply = await inner.chat.completions.create(body, options);
          onReply(replyCost(reply, model, prices));
          return reply;
        },
      },
    },
  };
}

/** Sums what a CLI's calls cost, for its closing line: dollars, and whether any call went unpriced. */
export class CostMeter {
  public usd = 0;
  public calls = 0;
  public readonly unpriced = new Set<string>();

  public add(cost: ReplyCost): void {
    this.calls += 1;
    if (cost.usd === undefined) this.unpriced.add(cost.model);
    else this.usd += cost.usd;
  }

  /** "$0.0123 for 4 calls", with the models that had no price; empty when there were no calls. */
  public describe(): string {
    if (this.calls === 0) return '';
    const missing = this.unpriced.size === 0 ? '' : ` (not priced: ${[...this.unpriced].sort().join(', ')}; the sum is a lower bound)`;
    return `$${roundUsd(this.usd)} for ${this.calls} call${this.calls === 1 ? '' : 's'}${missing}`;
  }
}
