// Protected turns and boundary snapping: upstream's test vectors (tests/test_trajectory_compressor.py;
// docs/compression.md#budget-and-window) where our role-based window agrees, and our behaviour where it
// deliberately differs from upstream's n // 2 split.
import { describe, expect, it } from 'vitest';
import type { Turn } from '@hermes-datagen/core';
import { compressibleWindow, snapBoundary } from '@hermes-datagen/compress/internal/window.js';
import { settings } from './helpers.js';

const t = (from: Turn['from'], value = 'x'): Turn => ({ from, value });
/** upstream's basic 10-turn trajectory: system, human, then gpt/tool pairs (no tool calls in the text). */
const basic = [t('system'), t('human'), t('gpt'), t('tool'), t('gpt'), t('tool'), t('gpt'), t('tool'), t('gpt'), t('tool')];
const hermes = settings({ protectFinalAction: false });

describe('compressibleWindow', () => {
  it('upstream basic: first system/human/gpt/tool and the last 4 protected → window [4, 6)', () => {
    expect(compressibleWindow(basic, hermes)).toEqual({ start: 4, end: 6 });
  });

  it('upstream short trajectory: everything protected → no window', () => {
    const w = compressibleWindow([t('system'), t('human'), t('gpt'), t('tool')], hermes);
    expect(w.start).toBeGreaterThanOrEqual(w.end);
  });

  it('upstream last_n = 0: only first occurrences protected → window from 4 to the end', () => {
    expect(compressibleWindow(basic, { ...hermes, protectLast: 0 })).toEqual({ start: 4, end: 10 });
  });

  it('upstream no system turn: the head ends at the first tool', () => {
    expect(compressibleWindow(basic.slice(1), hermes)).toEqual({ start: 3, end: 5 });
  });

  it('upstream first_system disabled: the head still ends at the first tool', () => {
    expect(compressibleWindow(basic, { ...hermes, protectFirstSystem: false })).toEqual({ start: 4, end: 6 });
  });

  it('DIFFERS from upstream (PR #7248): n = 8, last 5, first tool at 3 — upstream inverts the window, ours is empty by role', () => {
    const turns = [t('system'), t('human'), t('gpt'), t('tool'), t('gpt'), t('tool'), t('gpt'), t('human')];
    // upstream: head {0..3} → start 4; tail from n//2 = 4 → end 3 (inverted). Ours: tail starts at 3,
    // so the first tool belongs to the tail and nothing between head and tail is left.
    const w = compressibleWindow(turns, { ...hermes, protectLast: 5 });
    expect(w.start).toBeGreaterThanOrEqual(w.end);
  });

  it('DIFFERS from upstream (PR #50411): a first tool after the midpoint no longer pulls the end back', () => {
    const turns = [
      t('system'),
      t('human'),
      t('gpt'),
      t('human'),
      t('gpt'),
      t('human'),
      t('gpt'),
      t('gpt'),
      t('tool'),
      t('gpt'),
      t('human'),
      t('gpt'),
      t('human'),
      t('gpt'),
    ];
    // upstream: first tool 8 >= n//2 = 7 is classed "tail", so its window is [3, 8) and turns 8-9 are
    // never compressible. Ours: the tail is the last 4 turns (from 10); the first tool is a protected
    // head turn wherever it is, so the window is what lies between it and the tail.
    expect(compressibleWindow(turns, hermes)).toEqual({ start: 9, end: 10 });
  });

  it('keeps the final action (last gpt with a tool call and its result) out of the window', () => {
    const turns = [
      ...basic.slice(0, 8),
      t('gpt', '<think>\n</think>\n<tool_call>\n{}\n</tool_call>'),
      t('tool'),
      t('gpt'),
      t('human'),
      t('gpt'),
      t('human'),
      t('gpt'),
    ];
    expect(compressibleWindow(turns, settings()).end).toBe(8);
    expect(compressibleWindow(turns, hermes).end).toBe(11);
  });

  it('never starts on a tool turn (PR #83206) nor lets the tail start on one', () => {
    const turns = [t('system'), t('human'), t('gpt'), t('tool'), t('tool'), t('gpt'), t('tool'), t('gpt'), t('tool'), t('gpt'), t('human')];
    const w = compressibleWindow(turns, { ...hermes, protectLast: 4 });
    expect(turns[w.start]?.from).not.toBe('tool');
    expect(w).toEqual({ start: 5, end: 7 });
    // With the last 3 protected the tail would start on the tool turn 8: its call (7) joins the tail.
    expect(compressibleWindow(turns, { ...hermes, protectLast: 3 })).toEqual({ start: 5, end: 7 });
  });
});

describe('snapBoundary (upstream vectors)', () => {
  const paired = [t('system'), t('human'), t('gpt'), t('tool'), t('gpt'), t('tool'), t('gpt'), t('tool'), t('gpt'), t('tool')];
  it('moves forward off a tool turn, stays on a clean one, and goes back when nothing clean lies ahead', () => {
    expect(snapBoundary(paired, 5, 4, 8)).toBe(6);
    expect(snapBoundary(paired, 4, 4, 8)).toBe(4);
    expect(snapBoundary([t('gpt'), t('tool')], 1, 0, 1)).toBe(0);
  });
});
