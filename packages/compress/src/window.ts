// Which turns may be compressed. Protected (kept byte for byte): the first system, human, gpt and tool
// turns, the last --protect-last turns, and the final action (the last gpt turn that calls a tool, with
// its tool turn). Unlike upstream, head and tail are told apart by role and position, not by the
// midpoint n // 2 (upstream PRs #7248 / #50411: a late first tool pulled the window's end back, and
// short trajectories inverted it). The window never starts or ends inside a call/result pair.
import type { Turn } from '@hermes-datagen/core';
import type { CompressConfig } from './config.js';

export interface Window {
  /** First compressible turn. */
  readonly start: number;
  /** One past the last compressible turn; start >= end means nothing may be compressed. */
  readonly end: number;
}

type Protection = Pick<
  CompressConfig,
  'protectFirstSystem' | 'protectFirstHuman' | 'protectFirstGpt' | 'protectFirstTool' | 'protectLast' | 'protectFinalAction'
>;

export function callsTool(turn: Turn): boolean {
  return turn.from === 'gpt' && turn.value.includes('<tool_call>');
}

export function compressibleWindow(turns: readonly Turn[], config: Protection): Window {
  const n = turns.length;
  let tailStart = Math.max(0, n - config.protectLast);
  if (config.protectFinalAction) {
    for (let i = n - 1; i >= 0; i--) {
      if (callsTool(turns[i] as Turn)) {
        tailStart = Math.min(tailStart, i);
        break;
      }
    }
  }
  const first = new Map<string, number>();
  turns.forEach((turn, i) => {
    if (!first.has(turn.from)) first.set(turn.from, i);
  });
  let head = -1;
  for (const [role, on] of [
    ['system', config.protectFirstSystem],
    ['human', config.protectFirstHuman],
    ['gpt', config.protectFirstGpt],
    ['tool', config.protectFirstTool],
  ] as const) {
    const index = first.get(role);
    if (on && index !== undefined && index < tailStart) head = Math.max(head, index);
  }
  let start = head + 1;
  // A tool turn whose call is protected stays with it: the region starts after it.
  while (start < tailStart && turns[start]?.from === 'tool') start++;
  // The tail must not begin with a tool turn whose call would be compressed: its call joins the tail.
  let end = tailStart;
  while (end > start && turns[end]?.from === 'tool') end--;
  return { start, end };
}

/**
 * Upstream's _snap_boundary: an index moved forward to the first non-tool turn (at most to max), else
 * backward (at least to min), so a boundary never separates a tool turn from the gpt turn before it.
 */
export function snapBoundary(turns: readonly Turn[], index: number, min: number, max: number): number {
  const clean = (i: number): boolean => i >= turns.length || turns[i]?.from !== 'tool';
  let forward = index;
  while (forward < max && !clean(forward)) forward++;
  if (clean(forward)) return forward;
  let back = index;
  while (back > min && !clean(back)) back--;
  return back;
}
