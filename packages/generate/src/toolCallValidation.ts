// Checks one tool call of a model reply before anything runs. A call the loop cannot run (a name not
// offered, arguments that are not one JSON object) gets an error result the model can read and act
// on; the run goes on, and only repeated bad turns end it (agentLoop.ts). Error results are
// `{"error": ...}` objects, so tool_stats counts these calls as failures (docs/rules.md#tool-success),
// where newer upstream's plain-text errors count as successes.
import { isPlainObject, type ChatToolCall } from '@hermes-datagen/core';

/** Consecutive replies with a bad call after which the run stops, `partial: true` (upstream's 3 strikes). */
export const MAX_STRIKES = 3;

export type CheckedCall =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly error: string /** The name is in no registry: hermes-filter drops such records. */; readonly unknownName: boolean };

export interface ToolNames {
  /** The tools offered to the model in this run. */
  readonly offered: ReadonlySet<string>;
  /** Every name in the tool registry, offered or not. */
  readonly known: ReadonlySet<string>;
}

export function checkToolCall(call: ChatToolCall, names: ToolNames): CheckedCall {
  const name = call.function.name;
  if (!names.offered.has(name)) {
    return { ok: false, error: nameError(name, names), unknownName: name !== '' && !names.known.has(name) };
  }
  const args = parseArguments(call.function.arguments);
  if (typeof args === 'string') {
    return {
      ok: false,
      error: `the arguments of ${name} are not a JSON object (${args}); send them again as one JSON object matching the tool's parameters`,
      unknownName: false,
    };
  }
  return { ok: true, args };
}

/** The content of the tool message answering a call that was not run. */
export function errorResult(message: string): string {
  return JSON.stringify({ error: message });
}

function nameError(name: string, names: ToolNames): string {
  const available = `Available tools: ${[...names.offered].sort().join(', ') || 'none'}`;
  if (name === '') return `the tool name was empty; call one of the available tools by its name. ${available}`;
  if (names.known.has(name)) return `tool '${name}' is not available in this task. ${available}`;
  return `tool '${name}' does not exist. ${available}`;
}

/** The arguments object, or what is wrong with them. An empty string means no arguments, as several providers send it. */
function parseArguments(raw: string | Record<string, unknown>): Record<string, unknown> | string {
  if (typeof raw !== 'string') return isPlainObject(raw) ? raw : 'not an object';
  if (raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return `invalid JSON: ${(error as Error).message}`;
  }
  if (isPlainObject(value)) return value;
  return `got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
}
