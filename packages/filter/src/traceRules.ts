// The invalid-trajectory filters (docs/rules.md#filters), read from the trace: a thought repeated
// (the agent looping), a step that does nothing, and a run of failing tool calls.
import { parseToolValue, toolCallSucceeded } from '@hermes-datagen/core';
import { quote, turnPlace, type GptTurn, type TrajectoryView, type Verdict } from './trajectoryView.js';

/**
 * The same non-empty thought (think and scratchpad text of a gpt turn, trimmed) in a gpt turn and in
 * one of the `window` gpt turns before it; window 1 means twice in a row.
 */
export function repeatedThought(view: TrajectoryView, window: number): Verdict | null {
  const recent: { thought: string; index: number }[] = [];
  for (const turn of view.gptTurns) {
    const thought = thoughtOf(turn);
    const earlier = thought === '' ? undefined : recent.find((entry) => entry.thought === thought);
    if (earlier) {
      return { reason: 'repeated_thought', detail: `${turnPlace(turn.index)} repeats the thought of ${turnPlace(earlier.index)}: ${quote(thought)}` };
    }
    recent.push({ thought, index: turn.index });
    if (recent.length > window) recent.shift();
  }
  return null;
}

function thoughtOf(turn: GptTurn): string {
  return [...turn.parsed.think, ...turn.parsed.scratchpad].filter((text) => text !== '').join('\n');
}

/** A gpt turn with neither text nor a tool call (only a think block, or nothing): a no-op step. */
export function emptyAction(view: TrajectoryView): Verdict | null {
  const empty = view.gptTurns.find((turn) => turn.parsed.text === '' && turn.parsed.toolCalls.length === 0);
  return empty ? { reason: 'empty_action', detail: `${turnPlace(empty.index)} has neither text nor a tool call` } : null;
}

/**
 * `streak` tool results in a row that fail under core's success rule (docs/rules.md#tool-success), in
 * conversation order across tool turns; a success ends a run. A result block that cannot be read fails.
 */
export function toolErrorStreak(view: TrajectoryView, streak: number): Verdict | null {
  let run = 0;
  const { conversations } = view.record;
  for (let index = 0; index < conversations.length; index += 1) {
    const turn = conversations[index];
    if (turn?.from !== 'tool') continue;
    for (const response of parseToolValue(turn.value)) {
      run = toolCallSucceeded(response.content) ? 0 : run + 1;
      if (run >= streak) {
        return { reason: 'tool_error_streak', detail: `${run} failing tool results in a row, the last in ${turnPlace(index)} (${response.name ?? 'unnamed'})` };
      }
    }
  }
  return null;
}
