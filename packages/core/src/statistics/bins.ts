// Equal-width bins for showing a distribution (text bars, SVG columns): a histogram with few distinct
// values is shown value by value, a wide one in about `maxBins` bins of a round width.

export interface Bin {
  /** Inclusive lower bound. */
  readonly from: number;
  /** Inclusive upper bound. */
  readonly to: number;
  readonly count: number;
}

/** The smallest of 1, 2, 2.5 or 5 times a power of ten that is at least `raw`, as a whole number of at least 1. */
export function niceWidth(raw: number): number {
  if (!(raw > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10;
  return Math.ceil(step * power);
}

/** Bins of a histogram of whole numbers (value -> count, as the summary writes it), empty bins included. */
export function binHistogram(histogram: Readonly<Record<string, number>>, maxBins: number): Bin[] {
  const entries = Object.entries(histogram)
    .map(([value, count]) => [Number(value), count] as const)
    .sort(([a], [b]) => a - b);
  if (entries.length === 0) return [];
  const lo = entries[0]![0];
  const hi = entries[entries.length - 1]![0];
  const width = hi - lo + 1 <= maxBins ? 1 : niceWidth((hi - lo + 1) / maxBins);
  const start = Math.floor(lo / width) * width;
  const bins = Array.from({ length: Math.floor((hi - start) / width) + 1 }, (_, i) => ({ from: start + i * width, to: start + (i + 1) * width - 1, count: 0 }));
  for (const [value, count] of entries) bins[Math.floor((value - start) / width)]!.count += count;
  return bins;
}

export function binLabel(bin: Bin): string {
  return bin.from === bin.to ? String(bin.from) : `${bin.from}-${bin.to}`;
}
