import { describe, expect, it } from 'vitest';
import { binHistogram, binLabel, niceWidth } from '@hermes-datagen/core/internal/statistics/bins.js';

describe('niceWidth', () => {
  it('rounds up to 1, 2, 2.5 or 5 times a power of ten, never below 1', () => {
    expect([0, 0.4, 1, 1.5, 3, 7, 11, 24, 26, 4100].map(niceWidth)).toEqual([1, 1, 1, 2, 5, 10, 20, 25, 50, 5000]);
  });
});

describe('binHistogram', () => {
  it('keeps a narrow histogram value by value, empty values included', () => {
    expect(binHistogram({ '3': 2, '5': 1 }, 10)).toEqual([
      { from: 3, to: 3, count: 2 },
      { from: 4, to: 4, count: 0 },
      { from: 5, to: 5, count: 1 },
    ]);
  });

  it('puts a wide one in round bins that hold every count', () => {
    const histogram = { '1': 4, '19': 1, '20': 2, '99': 3 };
    const bins = binHistogram(histogram, 10);
    expect(bins.map(binLabel)).toEqual(['0-9', '10-19', '20-29', '30-39', '40-49', '50-59', '60-69', '70-79', '80-89', '90-99']);
    expect(bins.map((b) => b.count)).toEqual([4, 1, 2, 0, 0, 0, 0, 0, 0, 3]);
  });

  it('is empty for an empty histogram', () => {
    expect(binHistogram({}, 10)).toEqual([]);
  });
});
