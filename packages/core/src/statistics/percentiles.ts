// Distributions of small integers (turns, api_calls) kept as exact value histograms: two histograms
// add up to the histogram of the union, so shard summaries merge without losing the median or p90.

/** value -> how many times it occurred. */
export type Histogram = Map<number, number>;

export interface ValueDistribution {
  min: number | null;
  median: number | null;
  p90: number | null;
  max: number | null;
  /** The exact histogram the other numbers are derived from, keys ascending. */
  histogram: Record<string, number>;
}

export function addToHistogram(histogram: Histogram, value: number, times = 1): void {
  histogram.set(value, (histogram.get(value) ?? 0) + times);
}

/**
 * The q-quantile (0 <= q <= 1) of the values a histogram holds, interpolated linearly between the two
 * nearest ranks: with the n values sorted as v[0..n-1], h = (n - 1) * q and
 * result = v[floor(h)] + (v[floor(h) + 1] - v[floor(h)]) * (h - floor(h)). This is numpy's default and
 * DuckDB's quantile_cont / median, so SQL over the same rows gives the same number. Null when empty.
 */
export function quantile(histogram: Histogram, q: number): number | null {
  const values = [...histogram.keys()].sort((a, b) => a - b);
  let total = 0;
  for (const value of values) total += histogram.get(value) ?? 0;
  if (total === 0) return null;
  const h = (total - 1) * q;
  const lowRank = Math.floor(h);
  const low = valueAtRank(histogram, values, lowRank);
  if (h === lowRank) return low;
  const high = valueAtRank(histogram, values, lowRank + 1);
  return low + (high - low) * (h - lowRank);
}

/** The value at 0-based rank `rank` among the histogram's values in ascending order. */
function valueAtRank(histogram: Histogram, ascending: readonly number[], rank: number): number {
  let seen = 0;
  for (const value of ascending) {
    seen += histogram.get(value) ?? 0;
    if (rank < seen) return value;
  }
  throw new RangeError(`rank ${rank} is past the ${seen} values of the histogram`);
}

export function distribution(histogram: Histogram): ValueDistribution {
  const present = [...histogram].filter(([, count]) => count > 0).sort(([a], [b]) => a - b);
  return {
    min: present.length > 0 ? present[0]![0] : null,
    median: quantile(histogram, 0.5),
    p90: quantile(histogram, 0.9),
    max: present.length > 0 ? present[present.length - 1]![0] : null,
    histogram: Object.fromEntries(present.map(([value, count]) => [String(value), count])),
  };
}

/** The inverse of distribution(): its histogram back as a Histogram. */
export function histogramFrom(histogram: Readonly<Record<string, number>>): Histogram {
  const result: Histogram = new Map();
  for (const [value, count] of Object.entries(histogram)) addToHistogram(result, Number(value), count);
  return result;
}
