// A trajectory as the OpenAI chat messages SFT trainers read (TRL's SFTTrainer, axolotl's chat_template
// datasets, LLaMA-Factory's openai format): assistant tool calls as structured `tool_calls`, each tool
// result a `tool` message answering its call by `tool_call_id`, reasoning in its own field, and the tools
// offered as JSON-schema function definitions beside the messages (docs/atropos.md#chat-lines).
// hermes-to-atropos --emit chat and hermes-stats card both convert with this one module.
//
// - The system turn that is exactly Hermes's function-calling template only restates the tools in Hermes's
//   own wire format: it becomes `tools`, and no system message (the trainer's chat template writes the
//   tools into its system prompt in the model's own format). Any other system turn is kept verbatim.
// - Tool-call ids are made from the record's id and the call's position, so every run gives the same ids.
// - A record whose turns cannot be split faithfully (a malformed or unclosed <tool_call>, an unreadable
//   <tool_response>, more results than calls, a stray tool-call tag) is not converted: the caller rejects
//   it with the reason, so no Hermes markup is left in a message and nothing is silently dropped. User text
//   and tool results are data and kept verbatim, whatever they mention.
import { hash } from 'node:crypto';
import { UsageError } from './errors.js';
import type { Trajectory, Turn } from './model.js';
import { isPlainObject } from './plainObject.js';
import { pythonJsonDumps } from './pythonJson.js';
import { hermesSystemPromptTools } from './sharegpt.js';
import { offeredTools, parseGptValue, parseToolValue, TOOL_CALL_TAG, TOOL_RESPONSE_TAG } from './turns.js';

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** The assistant's reasoning (under another name with ReasoningPlacement { field }). */
  reasoning_content?: string;
  tool_calls?: OpenAIToolCall[];
  tool_call_id?: string;
}

/** A tool as OpenAI's `tools` parameter and Hugging Face chat templates take it. */
export interface OpenAIToolSchema {
  type: 'function';
  function: { name: string; description?: string; parameters?: unknown };
}

export interface OpenAIChat {
  messages: OpenAIChatMessage[];
  tools: OpenAIToolSchema[];
}

/** Where an assistant's reasoning goes: a field of the message, back into content as a <think> block, or nowhere. */
export type ReasoningPlacement = { readonly field: string } | 'inline' | 'drop';

export const DEFAULT_REASONING_FIELD = 'reasoning_content';

/** Fields a message already has: reasoning put under one would overwrite it. */
const MESSAGE_FIELDS = ['role', 'content', 'tool_calls', 'tool_call_id', 'name'];

/** --reasoning-field's value: inline, drop, or a field name (not one a message already uses). */
export function parseReasoningPlacement(value: string): ReasoningPlacement {
  if (value === 'inline' || value === 'drop') return value;
  if (value === '' || MESSAGE_FIELDS.includes(value)) {
    throw new UsageError(`--reasoning-field ${JSON.stringify(value)}: give a new field name (e.g. ${DEFAULT_REASONING_FIELD}), inline or drop`);
  }
  return { field: value };
}

const HERMES_MARKUP = [TOOL_CALL_TAG, TOOL_RESPONSE_TAG].flatMap((tag) => [`<${tag}>`, `</${tag}>`]);

/** The record as OpenAI chat messages and tools, or the problem that stops it being converted faithfully. */
export function toOpenAIChat(record: Trajectory, recordId: string, reasoning: ReasoningPlacement): OpenAIChat | { problem: string } {
  const messages: OpenAIChatMessage[] = [];
  let tools: OpenAIToolSchema[] = [];
  let openCalls: OpenAIToolCall[] = [];
  for (const [index, turn] of record.conversations.entries()) {
    const where = `turn ${index} (${turn.from})`;
    if (turn.from === 'system') {
      const listed = hermesSystemPromptTools(turn.value);
      tools = (listed ?? offeredTools(turn.value) ?? []).flatMap(toolSchema);
      if (listed === null) messages.push({ role: 'system', content: turn.value });
    } else if (turn.from === 'human') {
      messages.push({ role: 'user', content: turn.value });
    } else if (turn.from === 'gpt') {
      const message = assistantMessage(turn, reasoning, (k) => toolCallId(recordId, index, k));
      if ('problem' in message) return { problem: `${where}: ${message.problem}` };
      if (HERMES_MARKUP.some((tag) => message.content.includes(tag)))
        return { problem: `${where}: a stray tool-call tag in the text, outside any well-formed call` };
      messages.push(message);
      openCalls = message.tool_calls ?? [];
    } else {
      const results = toolMessages(turn, openCalls);
      if ('problem' in results) return { problem: `${where}: ${results.problem}` };
      messages.push(...results);
      openCalls = [];
    }
  }
  return { messages, tools };
}

/** `call_` and 24 hex digits of SHA-256 over the record id, the turn and the call's place in it. */
export function toolCallId(recordId: string, turnIndex: number, callIndex: number): string {
  return `call_${hash('sha256', `${recordId}\u0000${turnIndex}\u0000${callIndex}`, 'hex').slice(0, 24)}`;
}

function assistantMessage(turn: Turn, reasoning: ReasoningPlacement, idOf: (k: number) => string): OpenAIChatMessage | { problem: string } {
  const parsed = parseGptValue(turn.value);
  const calls: OpenAIToolCall[] = [];
  for (const call of parsed.toolCalls) {
    if (call.error !== undefined || call.name === null) return { problem: `<tool_call> ${calls.length}: ${call.error ?? 'no name'}` };
    calls.push({ id: idOf(calls.length), type: 'function', function: { name: call.name, arguments: pythonJsonDumps(call.arguments) } });
  }
  const thought = [...parsed.think, ...parsed.scratchpad].filter((text) => text !== '').join('\n\n');
  const inline = thought !== '' && reasoning === 'inline';
  const message: OpenAIChatMessage = {
    role: 'assistant',
    content: inline ? `<think>\n${thought}\n</think>\n\n${parsed.text}` : parsed.text,
    ...(thought !== '' && typeof reasoning === 'object' ? { [reasoning.field]: thought } : {}),
  };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function toolMessages(turn: Turn, calls: readonly OpenAIToolCall[]): OpenAIChatMessage[] | { problem: string } {
  const responses = parseToolValue(turn.value);
  if (responses.length === 0) return { problem: 'no <tool_response> block' };
  if (responses.length > calls.length) return { problem: `${responses.length} tool results answer ${calls.length} tool calls of the turn before` };
  const messages: OpenAIChatMessage[] = [];
  for (const [k, response] of responses.entries()) {
    if (response.error !== undefined) return { problem: `<tool_response> ${k}: ${response.error}` };
    const content = typeof response.content === 'string' ? response.content : pythonJsonDumps(response.content);
    messages.push({ role: 'tool', tool_call_id: (calls[k] as OpenAIToolCall).id, content });
  }
  return messages;
}

/** A listed tool in OpenAI's shape: Hermes's `{name, description, parameters, required: null}` entries are wrapped. */
function toolSchema(entry: unknown): OpenAIToolSchema[] {
  if (!isPlainObject(entry)) return [];
  if (entry['type'] === 'function' && isPlainObject(entry['function']) && typeof entry['function']['name'] === 'string') {
    return [{ type: 'function', function: entry['function'] as OpenAIToolSchema['function'] }];
  }
  if (typeof entry['name'] !== 'string') return [];
  const fn: OpenAIToolSchema['function'] = { name: entry['name'] };
  if (typeof entry['description'] === 'string') fn.description = entry['description'];
  if (entry['parameters'] !== undefined) fn.parameters = entry['parameters'];
  return [{ type: 'function', function: fn }];
}
