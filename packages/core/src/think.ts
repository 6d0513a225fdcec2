// The <think> normalisation (docs/rules.md#think-blocks): how an assistant message's reasoning and
// content become one ShareGPT `gpt` value, and where reasoning is found on a provider's message.
import type { AssistantMessage } from './model.js';
import { pythonJsonDumps } from './pythonJson.js';
import { splitTagBlocks } from './tagBlocks.js';
import { toolCallArguments, validToolCalls } from './toolCalls.js';
import { SCRATCHPAD_TAG, THINK_TAG, TOOL_CALL_TAG } from './turns.js';
import { isPythonBlank, pythonStrip, pythonStripEnd } from './pythonText.js';

/** Prepended to a gpt value that has no <think> block, so every gpt turn has the same shape. */
export const EMPTY_THINK = '<think>\n</think>\n';

/** The inline blocks newer upstream moves from content into reasoning. */
export const INLINE_REASONING_TAGS = [THINK_TAG, 'thinking', 'thought', 'reasoning', SCRATCHPAD_TAG] as const;

const SCRATCHPAD_OPEN = `<${SCRATCHPAD_TAG}>`;
const SCRATCHPAD_CLOSE = `</${SCRATCHPAD_TAG}>`;

export function convertScratchpadToThink(content: string): string {
  if (!content.includes(SCRATCHPAD_OPEN)) return content;
  return content.replaceAll(SCRATCHPAD_OPEN, '<think>').replaceAll(SCRATCHPAD_CLOSE, '</think>');
}

/**
 * The `gpt` value of one assistant message (docs/rules.md#think-blocks), with tool calls or without.
 * The message is the stored one: `reasoning` is its normalised reasoning. When a raw provider message
 * arrives without it, reasoning_content / reasoning_details are used instead, so a provider that only
 * fills those does not yield empty think blocks.
 */
export function gptValueFromAssistant(msg: AssistantMessage): string {
  const reasoning = nonBlank(msg.reasoning) ?? joinParts(structuredReasoningParts(msg));
  let value = reasoning !== null ? `<think>\n${reasoning}\n</think>\n` : '';
  const content = msg.content ?? '';
  const calls = validToolCalls(msg);
  if (calls.length === 0) {
    value += convertScratchpadToThink(content);
    return pythonStrip(withThink(value));
  }
  if (!isPythonBlank(content)) value += `${convertScratchpadToThink(content)}\n`;
  for (const call of calls) {
    value += `<tool_call>\n${pythonJsonDumps({ name: call.function.name, arguments: toolCallArguments(call) })}\n</tool_call>\n`;
  }
  return pythonStripEnd(withThink(value));
}

// Upstream tests for the substring "<think>", so a tag merely mentioned in prose ("wrap notes in a
// <think> tag" inside a closed sentence) suppresses the empty block and the turn loses the shape
// every gpt turn should have. We look for a <think> block instead (outside tool_call arguments);
// where upstream inserts the block, so do we. A <think> that never closes (a reply cut off while
// thinking) gets no block in front of it either, as upstream: the turn must never hold two opening
// tags and one closing tag.
function withThink(value: string): string {
  const hasThink = splitTagBlocks(value, [THINK_TAG, TOOL_CALL_TAG]).some((segment) => segment.kind !== 'text' && segment.tag === THINK_TAG);
  return hasThink ? value : EMPTY_THINK + value;
}

export interface ExtractedReasoning {
  /** The reasoning text, parts joined with a blank line, or null when there is none. */
  reasoning: string | null;
  /** The content, with inline reasoning blocks removed when they were the source of `reasoning`. */
  content: string | null;
}

/**
 * Where newer upstream finds a provider message's reasoning: the structured fields first
 * (`reasoning`, `reasoning_content`, `reasoning_details[*].summary|thinking|content|text`), and only
 * when none has text, inline <think>/<thinking>/<thought>/<reasoning>/<REASONING_SCRATCHPAD> blocks in
 * the content, which are then removed from it. Moving inline reasoning out of the content means a
 * model that thinks inline is counted as reasoning by the zero-reasoning filter (B0 dropped it).
 * With structured reasoning the content is left as it is, so a scratchpad in it still becomes a
 * second think block instead of being lost.
 */
export function extractReasoning(msg: AssistantMessage): ExtractedReasoning {
  const structured = joinParts(structuredReasoningParts(msg));
  if (structured !== null || !msg.content) return { reasoning: structured, content: msg.content };
  const segments = splitTagBlocks(msg.content, INLINE_REASONING_TAGS);
  if (!segments.some((segment) => segment.kind === 'block')) return { reasoning: null, content: msg.content };
  const parts: string[] = [];
  let content = '';
  for (const segment of segments) {
    if (segment.kind === 'block') parts.push(pythonStrip(segment.inner));
    else if (segment.kind === 'text') content += segment.text;
    else content += `<${segment.tag}>`;
  }
  return { reasoning: joinParts(parts), content: pythonStrip(content) };
}

function structuredReasoningParts(msg: AssistantMessage): string[] {
  const parts = [msg.reasoning, msg.reasoning_content];
  for (const detail of Array.isArray(msg.reasoning_details) ? msg.reasoning_details : []) {
    parts.push([detail?.summary, detail?.thinking, detail?.content, detail?.text].find((text) => nonBlank(text) !== null));
  }
  return parts.filter((part): part is string => nonBlank(part) !== null);
}

/** Joined with a blank line, each text once; null when there is nothing. */
function joinParts(parts: readonly string[]): string | null {
  const unique = [...new Set(parts.filter((part) => !isPythonBlank(part)))];
  return unique.length > 0 ? unique.join('\n\n') : null;
}

function nonBlank(text: unknown): string | null {
  return typeof text === 'string' && !isPythonBlank(text) ? text : null;
}
