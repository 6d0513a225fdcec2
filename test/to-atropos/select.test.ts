// The SFT and DPO selection rules of atropos-sft-gen / atropos-dpo-gen.
import { describe, expect, it } from 'vitest';
import { createRng } from '@hermes-datagen/core';
import { selectDpo, selectSft } from '@hermes-datagen/to-atropos/internal/select.js';

const base = { topN: 3, allowNegative: false, minScoreDiff: 0, minScore: undefined };

describe('selectSft', () => {
  it('keeps the best first, positives only, at most topN, ties in input order', () => {
    expect(selectSft([1, 0, 3, 2, 3, -1], base)).toEqual([2, 4, 3]);
    expect(selectSft([0, 0], base)).toEqual([]);
  });
  it('allows non-positive scores, a minimum spread over the group minimum, and a minimum score', () => {
    expect(selectSft([0, -1, -2], { ...base, allowNegative: true })).toEqual([0, 1, 2]);
    expect(selectSft([1, 2, 3], { ...base, minScoreDiff: 1 })).toEqual([2]);
    expect(selectSft([1, 5, 20], { ...base, minScore: 5 })).toEqual([2, 1]);
  });
});

describe('selectDpo', () => {
  it('pairs each positive with a lower-scored negative from the pool, each negative used once', () => {
    const pairs = selectDpo([1, 0, -1, 2], { ...base, minScoreDiff: 0.5 }, createRng(1));
    expect(pairs.map((p) => p.pos)).toEqual([3, 0]);
    const negs = pairs.map((p) => p.neg);
    expect(new Set(negs).size).toBe(2);
    for (const { pos, neg } of pairs) expect([1, 0, -1, 2][neg]).toBeLessThan(([1, 0, -1, 2][pos] as number) - 0.5);
  });
  it('is reproducible with a seed and varies with it', () => {
    const scores = [5, 0, 0, 0, 0, 0];
    const draw = (seed: number) => selectDpo(scores, { ...base, topN: 5 }, createRng(seed))[0]?.neg;
    expect(draw(7)).toBe(draw(7));
    expect(new Set([1, 2, 3, 4, 5, 6, 7, 8].map(draw)).size).toBeGreaterThan(1);
  });
  it('makes no pair without a spread', () => {
    expect(selectDpo([1, 1], { ...base, minScoreDiff: 0.5 }, createRng(0))).toEqual([]);
  });
});
