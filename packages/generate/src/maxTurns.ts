// What happens when a run reaches --max-turns without a final answer (docs/rules.md#completed-partial-and-api_calls):
// the agent asks for a summary in a user message, makes one call without tools, and keeps the
// answer without its think blocks. The record then has completed: false, with that human turn and
// the summary gpt turn in its conversations.
import { extractReasoning, type AssistantMessage } from '@hermes-datagen/core';

/** Upstream's exact words, so that records look the same as upstream's. */
export const MAX_TURNS_MESSAGE =
  "You've reached the maximum number of tool-calling iterations allowed. Please provide a final response summarizing what you've found and accomplished so far, without calling any more tools.";

/** The stored summary: the reply's text with every inline reasoning block removed, and no reasoning. */
export function summaryMessage(reply: AssistantMessage): AssistantMessage {
  const text = extractReasoning({ role: 'assistant', content: reply.content }).content ?? '';
  return { role: 'assistant', content: text.trim() };
}
