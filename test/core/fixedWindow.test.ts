import { describe, expect, it } from 'vitest';
import { FixedWindow } from '@hermes-datagen/core/internal/fixedWindow.js';

describe('FixedWindow', () => {
  it('learns the start from the request that found the window untouched, and the length from a refusal', () => {
    const window = new FixedWindow();
    // 10 a window: the first request found 9 left after it.
    expect(window.observe(9, 10, 1000, 3)).toBeUndefined();
    expect(window.seen).toBe(true);
    // The requests already sent spend the rest, but the window's length is not known yet.
    expect(window.observe(2, 10, 1500, 2)).toBeUndefined();
    expect(window.spent).toBe(true);
    expect(window.endsAt).toBeUndefined();
    window.refused(10_000);
    // Its end: start + length, and a margin for the request's way to the gateway.
    expect(window.endsAt).toBe(11_100);
    expect(window.observe(1, 10, 1600, 1)).toBe(11_100);
  });

  it('learns the length from one window start to the next when no refusal says it, and never lengthens it', () => {
    const window = new FixedWindow();
    window.observe(9, 10, 0, 0);
    expect(window.observe(0, 10, 500, 0)).toBeUndefined();
    // The next window's first request went out 12 s after the last one's: the windows last 12 s at most.
    window.observe(9, 10, 12_000, 0);
    expect(window.spent).toBe(false);
    expect(window.endsAt).toBe(24_100);
    window.observe(9, 10, 36_000, 0);
    expect(window.endsAt).toBe(48_100);
    window.observe(9, 10, 46_000, 0);
    expect(window.endsAt).toBe(56_100);
  });

  it('a late answer from a window gone by says nothing of the current one', () => {
    const window = new FixedWindow();
    window.observe(9, 10, 20_000, 0);
    expect(window.observe(0, 10, 19_000, 0)).toBeUndefined();
    expect(window.spent).toBe(false);
    window.refused(5000);
    expect(window.observe(0, 10, 21_000, 0)).toBe(25_100);
  });

  it('a refusal before any window was seen teaches nothing', () => {
    const window = new FixedWindow();
    window.refused(60_000);
    expect([window.seen, window.spent]).toEqual([false, false]);
    window.observe(9, 10, 0, 0);
    expect(window.endsAt).toBeUndefined();
  });
});
