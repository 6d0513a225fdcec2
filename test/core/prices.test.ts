// Prices: the table's checks (each bad entry named by its place), the usage forms pricing reads,
// and the arithmetic of one call (cached prompt tokens, the batch discount, the gateway's own figure).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HermesError } from '@hermes-datagen/core';
import { callCost, callUsageOf, loadPrices, priceFor, priceTableOf, roundUsd } from '@hermes-datagen/core/internal/prices.js';
import { tempDir } from '../util/cli.js';

const file = { option: '--prices', path: 'prices.yaml', cwd: '/' };

describe('priceTableOf', () => {
  it('reads each model price', () => {
    const table = priceTableOf({ a: { input: 1, output: 2 }, b: { input: 3, output: 4, cached_input: 0.3, batch_discount: 0.5 } }, file);
    expect(table.get('a')).toEqual({ input: 1, output: 2, cached_input: undefined, batch_discount: undefined });
    expect(table.get('b')).toEqual({ input: 3, output: 4, cached_input: 0.3, batch_discount: 0.5 });
  });

  it.each([
    [[1, 2], /expected a mapping of model id/],
    [{ a: 5 }, /at a: expected \{input, output/],
    [{ a: { input: 1 } }, /at a\.output: expected a number/],
    [{ a: { input: -1, output: 1 } }, /at a\.input: expected a number of US dollars per million tokens, 0 or more/],
    [{ a: { input: 1, output: 1, batch_discount: 2 } }, /at a\.batch_discount: expected the share taken off batch calls, from 0 to 1/],
    [{ a: { input: 1, output: 1, cahced_input: 1 } }, /at a\.cahced_input: unknown key/],
  ])('refuses %j with a message naming the place', (value, message) => {
    let error: unknown;
    try {
      priceTableOf(value, file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(HermesError);
    expect((error as HermesError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(/prices\.yaml/);
    expect((error as Error).message).toMatch(message);
  });

  it('loadPrices takes --prices over prices: in --config, and neither gives none', () => {
    const dir = tempDir('hermes-prices-');
    writeFileSync(join(dir, 'p.json'), JSON.stringify({ m: { input: 1, output: 1 } }));
    writeFileSync(join(dir, 'c.yaml'), 'providers: {}\nprices:\n  m: { input: 9, output: 9 }\n');
    writeFileSync(join(dir, 'bare.yaml'), 'default_model: m\n');
    expect(loadPrices({ prices: 'p.json', config: 'c.yaml' }, dir)?.get('m')?.input).toBe(1);
    expect(loadPrices({ config: 'c.yaml' }, dir)?.get('m')?.input).toBe(9);
    expect(loadPrices({ config: 'bare.yaml' }, dir)).toBeUndefined();
    expect(loadPrices({}, dir)).toBeUndefined();
    writeFileSync(join(dir, 'bad.yaml'), 'prices:\n  m: { input: x, output: 1 }\n');
    expect(() => loadPrices({ config: 'bad.yaml' }, dir)).toThrow(/--config bad\.yaml.*prices\.m\.input/);
  });
});

describe('callUsageOf', () => {
  it("reads OpenAI's cached tokens, Anthropic-compatible cache reads and a gateway's cost", () => {
    expect(callUsageOf({ prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 40 } })).toEqual({
      prompt_tokens: 100,
      completion_tokens: 10,
      cached_tokens: 40,
    });
    expect(callUsageOf({ prompt_tokens: 100, completion_tokens: 10, cache_read_input_tokens: 30 })?.cached_tokens).toBe(30);
    expect(callUsageOf({ prompt_tokens: 1, completion_tokens: 1, cost: 0.002 })?.gateway_cost).toBe(0.002);
    // Nonsense is not a price: a negative or missing cost is no gateway figure, cached never exceeds the prompt.
    expect(callUsageOf({ prompt_tokens: 5, completion_tokens: 1, cost: -1 })).not.toHaveProperty('gateway_cost');
    expect(callUsageOf({ prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 50 } })?.cached_tokens).toBe(5);
    expect(callUsageOf(undefined)).toBeUndefined();
    expect(callUsageOf('12')).toBeUndefined();
  });
});

describe('callCost', () => {
  const price = { input: 3, output: 15, cached_input: 0.3, batch_discount: 0.5 };
  const usage = { prompt_tokens: 1_000_000, completion_tokens: 100_000, cached_tokens: 250_000 };

  it('prices fresh and cached prompt tokens and completion tokens, per million', () => {
    expect(callCost(usage, price)).toBeCloseTo(0.75 * 3 + 0.25 * 0.3 + 0.1 * 15, 12);
    // Without a cached price, cached tokens cost the input price.
    expect(callCost(usage, { input: 3, output: 15 })).toBeCloseTo(3 + 1.5, 12);
  });

  it('takes the batch discount off a batch call only', () => {
    const list = callCost(usage, price) as number;
    expect(callCost(usage, price, true)).toBeCloseTo(list / 2, 12);
    expect(callCost(usage, { input: 3, output: 15 }, true)).toBeCloseTo(4.5, 12);
  });

  it("takes the gateway's figure over the table, and knows nothing without either", () => {
    expect(callCost({ ...usage, gateway_cost: 0.01 }, price)).toBe(0.01);
    expect(callCost({ ...usage, gateway_cost: 0.01 }, undefined)).toBe(0.01);
    expect(callCost(usage, undefined)).toBeUndefined();
  });

  it('priceFor prefers the model the gateway served, then the one asked for', () => {
    const table = priceTableOf({ asked: { input: 1, output: 1 }, served: { input: 2, output: 2 } }, file);
    expect(priceFor(table, 'asked', 'served')?.input).toBe(2);
    expect(priceFor(table, 'asked', 'unknown')?.input).toBe(1);
    expect(priceFor(table, 'nothing', undefined)).toBeUndefined();
  });

  it('roundUsd keeps a billionth of a dollar and drops float noise', () => {
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
    expect(roundUsd(1.23456789012)).toBe(1.23456789);
  });
});
