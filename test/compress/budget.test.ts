// Ratio mode arithmetic, min/max bounds, force-above and the byte bound's soundness.
import { describe, expect, it } from 'vitest';
import { certainSkip, skipReason, targetFor } from '@hermes-datagen/compress/internal/budget.js';
import { settings } from './helpers.js';

const requirements = settings({ ratio: 0.15, minTokensAfter: 800, maxTokensAfter: 6000, forceAboveTokens: 50000 });

describe('targetFor', () => {
  it('is target_max_tokens in Hermes mode', () => {
    expect(targetFor(100_000, settings())).toBe(15250);
    expect(targetFor(10, settings({ targetMaxTokens: 29000 }))).toBe(29000);
  });

  it('is min(max, max(min, ceil(ratio × N))) in ratio mode', () => {
    expect(targetFor(38_500, requirements)).toBe(5775); // ceil(0.15 × 38,500): the requirements' ~15%
    expect(targetFor(10_001, requirements)).toBe(1501); // ceil rounds up
    expect(targetFor(4000, requirements)).toBe(800); // raised to min_tokens_after
    expect(targetFor(45_000, requirements)).toBe(6000); // capped at max_tokens_after
    expect(targetFor(45_000, settings({ ratio: 0.15 }))).toBe(6750); // cap defaults to target_max_tokens (15,250)
  });

  it('caps a forced record at force_above_tokens', () => {
    expect(targetFor(60_000, settings({ targetMaxTokens: 100_000, forceAboveTokens: 50_000 }))).toBe(50_000);
    expect(targetFor(60_000, requirements)).toBe(6000);
  });
});

describe('skipReason', () => {
  it("skips the requirements' short trajectory (3,000 × 0.15 = 450 < 800) and records at or under target", () => {
    expect(skipReason(3000, requirements)).toBe('ratio_under_min');
    expect(skipReason(800, requirements)).toBe('under_target');
    expect(skipReason(15_250, settings())).toBe('under_target');
    expect(skipReason(15_251, settings())).toBeNull();
    expect(skipReason(38_000, requirements)).toBeNull();
  });

  it('never skips a record above force_above_tokens, whatever else would', () => {
    const config = settings({ targetMaxTokens: 100_000, forceAboveTokens: 50_000 });
    expect(skipReason(50_000, config)).toBe('under_target');
    expect(skipReason(50_001, config)).toBeNull();
  });
});

describe('certainSkip (the byte bound)', () => {
  it('only skips what counting would skip too, for every bound and token count under it', () => {
    for (const config of [settings(), requirements, settings({ ratio: 0.2, minTokensAfter: 1000 }), settings({ targetMaxTokens: 100, forceAboveTokens: 50 })]) {
      for (let bound = 0; bound <= 20_000; bound += 97) {
        const certain = certainSkip(bound, config);
        if (!certain) continue;
        for (const tokens of [0, 1, Math.floor(bound / 4), Math.floor(bound / 2), bound])
          expect(skipReason(tokens, config), `${bound}/${tokens}`).not.toBeNull();
      }
    }
    expect(certainSkip(15_250, settings())).toBe('under_target');
    expect(certainSkip(15_251, settings())).toBeNull();
    expect(certainSkip(5000, requirements)).toBe('ratio_under_min');
  });
});
