// The record-level rules: reasoning coverage (docs/rules.md#reasoning), completion, length and tool
// failure rate. Each returns why the record is dropped, or null to keep it.
import { gptTurnHasReasoning, toolStatsFromConversations } from '@hermes-datagen/core';
import type { TrajectoryView, Verdict } from './trajectoryView.js';

/**
 * No gpt turn has reasoning; a record with no gpt turn at all has none either (upstream discards it too).
 * Stops at the first turn with reasoning, which is usually the first turn.
 */
export function zeroReasoning(view: TrajectoryView): Verdict | null {
  const gptTurns = view.record.conversations.filter((turn) => turn.from === 'gpt');
  if (gptTurns.some((turn) => gptTurnHasReasoning(turn.value))) return null;
  const detail =
    gptTurns.length === 0 ? 'the record has no gpt turn' : `none of the ${gptTurns.length} gpt turns has a non-empty <think> or <REASONING_SCRATCHPAD> block`;
  return { reason: 'zero_reasoning', detail };
}

/** Fewer than `minRatio` of the gpt turns have reasoning; no gpt turn counts as a share of 0. */
export function minReasoningRatio(view: TrajectoryView, minRatio: number): Verdict | null {
  const gptTurns = view.record.conversations.filter((turn) => turn.from === 'gpt');
  const withReasoning = gptTurns.filter((turn) => gptTurnHasReasoning(turn.value)).length;
  const ratio = gptTurns.length === 0 ? 0 : withReasoning / gptTurns.length;
  if (ratio >= minRatio) return null;
  return {
    reason: 'min_reasoning_ratio',
    detail: `${withReasoning} of ${gptTurns.length} gpt turns have reasoning (${percent(ratio)}), below ${percent(minRatio)}`,
  };
}

export function requireCompleted(view: TrajectoryView): Verdict | null {
  return view.record.completed ? null : { reason: 'not_completed', detail: '"completed" is false' };
}

export function dropPartial(view: TrajectoryView): Verdict | null {
  return view.record.partial ? { reason: 'partial', detail: '"partial" is true' } : null;
}

export function minTurns(view: TrajectoryView, min: number): Verdict | null {
  const turns = view.gptTurnCount;
  return turns >= min ? null : { reason: 'min_turns', detail: `${turns} gpt turns, fewer than ${min}` };
}

export function maxTurns(view: TrajectoryView, max: number): Verdict | null {
  const turns = view.gptTurnCount;
  return turns <= max ? null : { reason: 'max_turns', detail: `${turns} gpt turns, more than ${max}` };
}

/**
 * Failed tool results over all judged results, recomputed from the conversation with core's success
 * rule (docs/rules.md#tool-success), so the record's own tool_stats (possibly stale or normalised
 * elsewhere) do not decide.
 * A record with no tool result has a rate of 0.
 */
export function maxToolFailureRate(view: TrajectoryView, maxRate: number): Verdict | null {
  let failures = 0;
  let results = 0;
  for (const stat of Object.values(toolStatsFromConversations(view.record.conversations))) {
    failures += stat.failure;
    results += stat.success + stat.failure;
  }
  const rate = results === 0 ? 0 : failures / results;
  if (rate <= maxRate) return null;
  return { reason: 'max_tool_failure_rate', detail: `${failures} of ${results} tool results failed (${percent(rate)}), above ${percent(maxRate)}` };
}

function percent(ratio: number): string {
  return `${Math.round(ratio * 1000) / 10}%`;
}
