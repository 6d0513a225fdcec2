// The pieces every check reports with: bounded examples, the worst status, short lists.
import { describe, expect, it } from 'vitest';
import { Examples, pct, plural, shortList, worst } from '@hermes-datagen/verify/internal/checkResult.js';

describe('check results', () => {
  it('Examples counts every problem and keeps the first few, saying how many more there were', () => {
    const examples = new Examples(2);
    for (const n of [1, 2, 3, 4]) examples.add(`problem ${n}`);
    expect(examples.count).toBe(4);
    expect(examples.list()).toEqual(['problem 1', 'problem 2', '... and 2 more']);
    expect(new Examples().list()).toEqual([]);
  });

  it('worst orders FAIL over WARN over PASS; nothing is PASS', () => {
    expect(worst('PASS', 'WARN', 'PASS')).toBe('WARN');
    expect(worst('WARN', 'FAIL', 'PASS')).toBe('FAIL');
    expect(worst()).toBe('PASS');
  });

  it('formats shares, counts and short lists for summaries', () => {
    expect(pct(1, 3)).toBe('33.3%');
    expect(pct(0, 0)).toBe('0%');
    expect(plural(1, 'record')).toBe('1 record');
    expect(plural(2, 'trajectory', 'trajectories')).toBe('2 trajectories');
    expect(shortList([1, 2, 3], 3)).toBe('1, 2, 3');
    expect(shortList([1, 2, 3, 4, 5], 12, 3)).toBe('1, 2, 3 and 9 more');
  });
});
