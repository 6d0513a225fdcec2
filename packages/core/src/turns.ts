// Reading ShareGPT turn values back into their parts: the inverse of sharegpt.ts / think.ts.
// Upstream writes tool_call and tool_response blocks with Python's json.dumps, so each block holds
// strict JSON. A block that is not strict JSON (for example model-written single-quoted pseudo-JSON
// like the system prompt's own example) is malformed and says so in `error`.
import { parseJsonLossless } from './losslessJson.js';
import { isPlainObject } from './plainObject.js';
import { splitTagBlocks, type TagToken } from './tagBlocks.js';
import { pythonStrip } from './pythonText.js';

export interface ParsedToolCall {
  /** The call's tool name, or null when the block has no string name. */
  name: string | null;
  /** The `arguments` value, or null when the block could not be read. */
  arguments: unknown;
  /** The block's inner text, stripped (Python's str.strip()). */
  raw: string;
  /** Set when the block is not a well-formed `{"name": str, "arguments": object}`. */
  error?: string;
}

export interface ParsedGptValue {
  /** Inner texts of the <think> blocks, stripped (Python's str.strip()); the inserted empty block gives "". */
  think: string[];
  /** Inner texts of <REASONING_SCRATCHPAD> blocks, stripped (Python's str.strip()) (upstream converts them to <think>). */
  scratchpad: string[];
  /** Everything outside the blocks, stripped (Python's str.strip()). */
  text: string;
  toolCalls: ParsedToolCall[];
}

export interface ParsedToolResponse {
  tool_call_id: string | null;
  name: string | null;
  content: unknown;
  /** The block's inner text, stripped (Python's str.strip()). */
  raw: string;
  /** Set when the block is not a well-formed `{"tool_call_id", "name": str, "content"}` object. */
  error?: string;
}

export const THINK_TAG = 'think';
export const SCRATCHPAD_TAG = 'REASONING_SCRATCHPAD';
export const TOOL_CALL_TAG = 'tool_call';
export const TOOL_RESPONSE_TAG = 'tool_response';
const TOOLS_OPEN = '<tools>';
const TOOLS_CLOSE = '</tools>';

/** The blocks a gpt value is read into. */
export const GPT_VALUE_TAGS: readonly string[] = [THINK_TAG, SCRATCHPAD_TAG, TOOL_CALL_TAG];

/** `tokens`: the value's tagTokens for GPT_VALUE_TAGS (or more), when the caller has them already. */
export function parseGptValue(value: string, tokens?: readonly TagToken[]): ParsedGptValue {
  const parsed: ParsedGptValue = { think: [], scratchpad: [], text: '', toolCalls: [] };
  let text = '';
  for (const segment of splitTagBlocks(value, GPT_VALUE_TAGS, tokens)) {
    if (segment.kind === 'text') {
      text += segment.text;
    } else if (segment.kind === 'block') {
      if (segment.tag === THINK_TAG) parsed.think.push(pythonStrip(segment.inner));
      else if (segment.tag === SCRATCHPAD_TAG) parsed.scratchpad.push(pythonStrip(segment.inner));
      else parsed.toolCalls.push(parseToolCallBlock(segment.inner));
    } else if (segment.tag === TOOL_CALL_TAG) {
      // A tool_call that never closes is a call cut off mid-way (a length stop): report it and
      // take the rest of the value as its text.
      const call = parseToolCallBlock(segment.rest);
      parsed.toolCalls.push({ ...call, error: call.error ?? 'the <tool_call> block is never closed' });
      break;
    } else {
      // An unclosed <think> is most often the tag mentioned in prose: keep it as text.
      text += `<${segment.tag}>`;
    }
  }
  parsed.text = pythonStrip(text);
  return parsed;
}

export function parseToolCallBlock(inner: string): ParsedToolCall {
  const raw = pythonStrip(inner);
  const json = parseJsonObject(raw);
  if ('error' in json) return { name: null, arguments: null, raw, error: json.error };
  const { name } = json.object;
  const args = json.object['arguments'];
  const call: ParsedToolCall = { name: typeof name === 'string' ? name : null, arguments: args ?? null, raw };
  if (typeof name !== 'string' || name === '') call.error = 'the tool call has no "name" string';
  else if (!('arguments' in json.object)) call.error = 'the tool call has no "arguments"';
  else if (!isPlainObject(args)) call.error = 'the tool call\'s "arguments" is not a JSON object';
  return call;
}

export function parseToolValue(value: string): ParsedToolResponse[] {
  const responses: ParsedToolResponse[] = [];
  for (const segment of splitTagBlocks(value, [TOOL_RESPONSE_TAG])) {
    if (segment.kind === 'block') {
      responses.push(parseToolResponseBlock(segment.inner));
    } else if (segment.kind === 'unclosed') {
      const response = parseToolResponseBlock(segment.rest);
      responses.push({ ...response, error: response.error ?? 'the <tool_response> block is never closed' });
      break;
    }
  }
  return responses;
}

function parseToolResponseBlock(inner: string): ParsedToolResponse {
  const raw = pythonStrip(inner);
  const json = parseJsonObject(raw);
  if ('error' in json) return { tool_call_id: null, name: null, content: null, raw, error: json.error };
  const { tool_call_id: id, name, content } = json.object;
  const response: ParsedToolResponse = {
    tool_call_id: typeof id === 'string' ? id : null,
    name: typeof name === 'string' ? name : null,
    content: content ?? null,
    raw,
  };
  if (typeof name !== 'string') response.error = 'the tool response has no "name" string';
  else if (!('content' in json.object)) response.error = 'the tool response has no "content"';
  return response;
}

/**
 * Names of the tools a system turn offers (the JSON list in its <tools> block), or null when it has
 * no readable list. Entries are upstream's `{"name", ...}` or the OpenAI shape
 * `{"type": "function", "function": {"name", ...}}`; entries without a name are skipped.
 */
export function offeredToolNames(systemValue: string): string[] | null {
  return (
    offeredTools(systemValue)
      ?.map(offeredToolName)
      .filter((name): name is string => name !== null) ?? null
  );
}

/**
 * The entries of a system turn's <tools> list, or null when it has no readable list. Upstream's template
 * also mentions "<tools> </tools>" in its first sentence, and a tool description may itself contain
 * "</tools>", so the list is the first <tools> that opens a JSON array, up to the first </tools> after
 * which that array parses.
 */
export function offeredTools(systemValue: string): unknown[] | null {
  for (let open = systemValue.indexOf(TOOLS_OPEN); open !== -1; open = systemValue.indexOf(TOOLS_OPEN, open + 1)) {
    const start = open + TOOLS_OPEN.length;
    if (!/^\s*\[/.test(systemValue.slice(start, start + 64))) continue;
    for (let close = systemValue.indexOf(TOOLS_CLOSE, start); close !== -1; close = systemValue.indexOf(TOOLS_CLOSE, close + 1)) {
      let list: unknown;
      try {
        list = JSON.parse(systemValue.slice(start, close));
      } catch {
        continue;
      }
      if (Array.isArray(list)) return list;
    }
  }
  return null;
}

function offeredToolName(entry: unknown): string | null {
  if (!isPlainObject(entry)) return null;
  const holder = isPlainObject(entry['function']) ? entry['function'] : entry;
  return typeof holder['name'] === 'string' ? holder['name'] : null;
}

function parseJsonObject(raw: string): { object: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    // Numbers as received: a block read here may be written again (hermes-to-atropos).
    value = parseJsonLossless(raw);
  } catch (error) {
    return { error: `not valid JSON (${(error as Error).message})` };
  }
  return isPlainObject(value) ? { object: value } : { error: 'not a JSON object' };
}
