import { describe, expect, it } from 'vitest';
import { distribution, histogramFrom, quantile, type Histogram } from '@hermes-datagen/core/internal/statistics/percentiles.js';

const histogramOf = (values: readonly number[]): Histogram => {
  const h: Histogram = new Map();
  for (const v of values) h.set(v, (h.get(v) ?? 0) + 1);
  return h;
};

/** numpy.quantile's default (linear) over the sorted list itself: the reference the histogram walk must match. */
function linearQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return h === lo ? sorted[lo]! : sorted[lo]! + (sorted[lo + 1]! - sorted[lo]!) * (h - lo);
}

describe('quantile', () => {
  it('interpolates between ranks like numpy / DuckDB quantile_cont', () => {
    expect(quantile(histogramOf([1, 2, 3, 4]), 0.5)).toBe(2.5);
    expect(quantile(histogramOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 0.9)).toBeCloseTo(9.1, 12);
    expect(quantile(histogramOf([7]), 0.9)).toBe(7);
    expect(quantile(histogramOf([3, 3, 3, 10]), 0.5)).toBe(3);
  });

  it('equals the quantile of the expanded list for random histograms', () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let trial = 0; trial < 50; trial += 1) {
      const values = Array.from({ length: 1 + (next() % 40) }, () => next() % 12);
      for (const q of [0, 0.25, 0.5, 0.9, 1]) expect(quantile(histogramOf(values), q)).toBe(linearQuantile(values, q));
    }
  });

  it('is null for no values', () => {
    expect(quantile(new Map(), 0.5)).toBeNull();
  });
});

describe('distribution', () => {
  it('derives min, median, p90, max from the histogram and keeps it with ascending keys', () => {
    const d = distribution(histogramOf([12, 3, 5, 5, 3, 3]));
    expect(d).toEqual({ min: 3, median: 4, p90: 8.5, max: 12, histogram: { '3': 3, '5': 2, '12': 1 } });
    expect(Object.keys(d.histogram)).toEqual(['3', '5', '12']);
    expect(histogramFrom(d.histogram)).toEqual(histogramOf([12, 3, 5, 5, 3, 3]));
  });

  it('gives nulls for an empty histogram', () => {
    expect(distribution(new Map())).toEqual({ min: null, median: null, p90: null, max: null, histogram: {} });
  });
});
