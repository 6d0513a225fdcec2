// Reads the tool calls and their results back out of a request's history, so the policy's final answer
// can quote what the tools really returned.
import { textOf, type ChatMessage } from './request.js';

export interface ToolResult {
  name: string;
  /** The argument that says what the call did (command, path, pattern, first line of code). */
  subject: string;
  /** The first lines of the result's text. */
  lines: string[];
  failed: boolean;
}

const SUBJECT_KEYS = ['command', 'pattern', 'path', 'code'];
const OUTPUT_KEYS = ['output', 'content', 'error', 'result'];
const MAX_LINES = 4;
const MAX_LINE_CHARS = 160;

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function subjectOf(argumentsText: string): string {
  const args = parseObject(argumentsText) ?? {};
  const key = SUBJECT_KEYS.find((k) => typeof args[k] === 'string');
  return key === undefined ? '' : ((args[key] as string).split('\n')[0] ?? '');
}

/** Hermes tools answer with JSON objects; the readable part is one of their text fields. */
function readableText(content: string): { text: string; failed: boolean } {
  const result = parseObject(content);
  if (result === undefined) return { text: content, failed: false };
  const failed = Boolean(result.error) || result.success === false || (typeof result.exit_code === 'number' && result.exit_code !== 0);
  const key = OUTPUT_KEYS.find((k) => typeof result[k] === 'string' && result[k] !== '');
  return { text: key === undefined ? JSON.stringify(result) : (result[key] as string), failed };
}

export function toolResults(messages: ChatMessage[]): ToolResult[] {
  const calls = new Map<string, { name: string | null; arguments: string }>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) calls.set(call.id, call.function);
  }
  return messages
    .filter((m) => m.role === 'tool')
    .map((message) => {
      const call = calls.get(message.tool_call_id ?? '');
      const { text, failed } = readableText(textOf(message.content));
      const lines = text
        .split('\n')
        .map((line) => line.trimEnd())
        .filter((line) => line !== '')
        .slice(0, MAX_LINES)
        .map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line));
      return { name: call?.name ?? message.name ?? 'tool', subject: subjectOf(call?.arguments ?? ''), lines, failed };
    });
}
