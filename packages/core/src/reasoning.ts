// Reasoning coverage for the zero-reasoning filter (docs/rules.md#reasoning), on the agent's
// internal messages or on a finished ShareGPT record.
import type { AssistantMessage, ChatMessage, Turn } from './model.js';
import { extractReasoning } from './think.js';
import { parseGptValue, type ParsedGptValue } from './turns.js';

export interface ReasoningStats {
  total_assistant_turns: number;
  turns_with_reasoning: number;
  turns_without_reasoning: number;
  has_any_reasoning: boolean;
}

/**
 * An internal assistant message has reasoning when any source of extractReasoning has text: the
 * structured fields, or else inline <think>-style or scratchpad blocks in the content. Upstream B0
 * looked only at `reasoning` and a scratchpad tag, so a model that thinks inline in <think> was
 * discarded as reasoning-free; newer upstream moves inline blocks into `reasoning`, and we count them
 * like it. An empty block is not reasoning.
 */
export function assistantHasReasoning(msg: AssistantMessage): boolean {
  return extractReasoning(msg).reasoning !== null;
}

/** A gpt value has reasoning when a <think> or <REASONING_SCRATCHPAD> block has text; the inserted empty <think> does not count. */
export function gptTurnHasReasoning(value: string): boolean {
  return parsedGptHasReasoning(parseGptValue(value));
}

/** The same for a value already parsed, so a caller that needs the parts too parses once. */
export function parsedGptHasReasoning(parsed: ParsedGptValue): boolean {
  return parsed.think.some((text) => text !== '') || parsed.scratchpad.some((text) => text !== '');
}

export function reasoningStats(messages: readonly ChatMessage[]): ReasoningStats {
  const assistants = messages.filter((msg): msg is AssistantMessage => msg.role === 'assistant');
  return countTurns(assistants.map(assistantHasReasoning));
}

export function conversationReasoningStats(turns: readonly Turn[]): ReasoningStats {
  return countTurns(turns.filter((turn) => turn.from === 'gpt').map((turn) => gptTurnHasReasoning(turn.value)));
}

function countTurns(hasReasoning: readonly boolean[]): ReasoningStats {
  const withReasoning = hasReasoning.filter(Boolean).length;
  return {
    total_assistant_turns: hasReasoning.length,
    turns_with_reasoning: withReasoning,
    turns_without_reasoning: hasReasoning.length - withReasoning,
    has_any_reasoning: withReasoning > 0,
  };
}
