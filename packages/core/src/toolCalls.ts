// Reading the tool calls of an internal (OpenAI-format) assistant message the way upstream does.
import type { AssistantMessage, ChatToolCall } from './model.js';
import { parseJsonLossless } from './losslessJson.js';
import { isPlainObject } from './plainObject.js';

/**
 * The usable entries of `tool_calls`. Upstream (B2) skips null and non-dict entries; we also skip
 * entries without a string `function.name`, on which upstream would crash.
 */
export function validToolCalls(msg: AssistantMessage): ChatToolCall[] {
  const calls: readonly unknown[] = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
  return calls.filter((call): call is ChatToolCall => isPlainObject(call) && isPlainObject(call['function']) && typeof call['function']['name'] === 'string');
}

/**
 * The call's arguments as a value: a JSON string is parsed (numbers kept as received, see losslessJson.ts),
 * and one that is not valid JSON becomes `{}`, as upstream.
 */
export function toolCallArguments(call: ChatToolCall): unknown {
  const args: unknown = call.function.arguments;
  if (typeof args !== 'string') return args ?? {};
  try {
    return parseJsonLossless(args);
  } catch {
    return {};
  }
}
