// A trajectory's ShareGPT turns as the OpenAI-format messages Atropos carries (docs/atropos.md#output).
//   raw: one message per turn, content verbatim (the Hermes wire text, <think> and <tool_call> included):
//     lossless, and what a ChatML template renders back to the same text.
//   structured: what hermes-agent's own environments store (AgentResult.messages): a gpt turn becomes
//     content (the text before its first <tool_call>, <think> included) plus tool_calls, and a tool
//     turn one tool message per <tool_response>. A turn that cannot be split without losing or
//     inventing text (a malformed block, text after a tool call, an unreadable response) stays raw
//     and is counted, so nothing the model wrote is dropped.
import {
  parseToolCallBlock,
  parseToolValue,
  pythonJsonDumps,
  splitTagBlocks,
  THINK_TAG,
  TOOL_CALL_TAG,
  TOOL_RESPONSE_TAG,
  type Turn,
} from '@hermes-datagen/core';
import type { AtroposMessage } from './atropos.js';

export type MessagesMode = 'raw' | 'structured';

const ROLES = { system: 'system', human: 'user', gpt: 'assistant', tool: 'tool' } as const;

export interface RenderedMessages {
  messages: AtroposMessage[];
  /** Turns kept raw in structured mode because they could not be split faithfully. */
  rawFallbacks: number;
}

export function toAtroposMessages(turns: readonly Turn[], mode: MessagesMode): RenderedMessages {
  if (mode === 'raw') return { messages: turns.map((turn) => ({ role: ROLES[turn.from], content: turn.value })), rawFallbacks: 0 };
  const messages: AtroposMessage[] = [];
  let rawFallbacks = 0;
  for (const [index, turn] of turns.entries()) {
    let structured: AtroposMessage[] | null = null;
    if (turn.from === 'gpt') {
      const message = structuredAssistant(turn.value, callIds(turns[index + 1], index));
      structured = message && [message];
    } else if (turn.from === 'tool') {
      structured = structuredToolResults(turn.value);
    } else {
      structured = [{ role: ROLES[turn.from], content: turn.value }];
    }
    if (structured === null) {
      rawFallbacks += 1;
      structured = [{ role: ROLES[turn.from], content: turn.value }];
    }
    messages.push(...structured);
  }
  return { messages, rawFallbacks };
}

/** The ids the answering tool turn gives each call, by position (how the conversion pairs them). */
function callIds(next: Turn | undefined, turnIndex: number): (k: number) => string {
  const responses = next?.from === 'tool' ? parseToolValue(next.value) : [];
  return (k) => responses[k]?.tool_call_id || `call_${turnIndex}_${k}`;
}

function structuredAssistant(value: string, idOf: (k: number) => string): AtroposMessage | null {
  let content = '';
  const calls: NonNullable<AtroposMessage['tool_calls']> = [];
  for (const segment of splitTagBlocks(value, [THINK_TAG, TOOL_CALL_TAG])) {
    if (segment.kind === 'unclosed') return null;
    if (segment.kind === 'block' && segment.tag === TOOL_CALL_TAG) {
      const call = parseToolCallBlock(segment.inner);
      if (call.error !== undefined || call.name === null) return null;
      calls.push({ id: idOf(calls.length), type: 'function', function: { name: call.name, arguments: pythonJsonDumps(call.arguments) } });
      continue;
    }
    const text = segment.kind === 'text' ? segment.text : `<${segment.tag}>${segment.inner}</${segment.tag}>`;
    // Text between or after tool calls has no place in the structured form.
    if (calls.length > 0) {
      if (text.trim() !== '') return null;
      continue;
    }
    content += text;
  }
  const message: AtroposMessage = { role: 'assistant', content: calls.length > 0 ? content.trim() : value };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function structuredToolResults(value: string): AtroposMessage[] | null {
  const responses = parseToolValue(value);
  if (responses.length === 0 || responses.some((response) => response.error !== undefined)) return null;
  // Text outside the blocks (or blocks not laid out as upstream writes them) would be lost: stay raw.
  const rebuilt = responses.map((response) => `<${TOOL_RESPONSE_TAG}>\n${response.raw}\n</${TOOL_RESPONSE_TAG}>`).join('\n');
  if (rebuilt !== value) return null;
  return responses.map((response) => ({
    role: 'tool',
    content: typeof response.content === 'string' ? response.content : pythonJsonDumps(response.content),
    ...(response.tool_call_id ? { tool_call_id: response.tool_call_id } : {}),
    ...(response.name !== null ? { name: response.name } : {}),
  }));
}
