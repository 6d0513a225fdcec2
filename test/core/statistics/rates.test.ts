import { describe, expect, it } from 'vitest';
import { percent, pythonRound } from '@hermes-datagen/core/internal/statistics/rates.js';

describe('pythonRound', () => {
  it("rounds the exact binary value half to even, as Python's round()", () => {
    // Expected values printed by CPython 3.
    expect(pythonRound(2.675, 2)).toBe(2.67); // stored just below the tie
    expect(pythonRound(0.125, 2)).toBe(0.12); // exact tie: to even
    expect(pythonRound(0.375, 2)).toBe(0.38);
    expect(pythonRound(-0.125, 2)).toBe(-0.12);
    expect(pythonRound(1.005, 2)).toBe(1);
    expect(pythonRound(0.045, 2)).toBe(0.04);
    expect(pythonRound(2.5, 0)).toBe(2);
    expect(pythonRound(3.5, 0)).toBe(4);
  });
});

describe('percent', () => {
  it('is round(part / whole * 100, 2) as upstream writes success_rate', () => {
    const cases: [number, number, number][] = [
      [1, 32, 3.12],
      [3, 32, 9.38],
      [5, 32, 15.62],
      [7, 32, 21.88],
      [1, 3, 33.33],
      [2, 3, 66.67],
      [398, 412, 96.6],
      [14, 412, 3.4],
      [1, 7, 14.29],
      [5, 8, 62.5],
      [1, 200, 0.5],
      [3, 400, 0.75],
      [2050, 2210, 92.76],
      [160, 2210, 7.24],
      [1, 6, 16.67],
      [5, 6, 83.33],
    ];
    for (const [part, whole, python] of cases) expect([part, whole, percent(part, whole)]).toEqual([part, whole, python]);
  });

  it('is 0 when the whole is 0', () => {
    expect(percent(0, 0)).toBe(0);
  });
});
