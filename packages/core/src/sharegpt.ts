// The ShareGPT conversion (docs/record-format.md#conversations): the agent's OpenAI-format history becomes
// the `conversations` of a trajectory record, byte for byte as upstream writes them.
import type { AssistantMessage, ChatMessage, ToolDefinition, ToolMessage, Turn } from './model.js';
import { parseJsonLossless } from './losslessJson.js';
import { pythonJsonDumps } from './pythonJson.js';
import { gptValueFromAssistant } from './think.js';
import { validToolCalls } from './toolCalls.js';
import { pythonStripStart } from './pythonText.js';

const SYSTEM_PROMPT_HEAD =
  'You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags. ' +
  'You may call one or more functions to assist with the user query. If available tools are not relevant in assisting ' +
  "with user query, just respond in natural conversational language. Don't make assumptions about what values to plug " +
  'into functions. After calling & executing the functions, you will be provided with function results within ' +
  '<tool_response> </tool_response> XML tags. Here are the available tools:\n<tools>\n';

// The example in single-quoted pseudo-JSON is upstream's text, kept as it is: it is what models trained
// on Hermes data have seen.
const SYSTEM_PROMPT_TAIL =
  '\n</tools>\nFor each function call return a JSON object, with the following pydantic model json schema for each:\n' +
  "{'title': 'FunctionCall', 'type': 'object', 'properties': {'name': {'title': 'Name', 'type': 'string'}, " +
  "'arguments': {'title': 'Arguments', 'type': 'object'}}, 'required': ['name', 'arguments']}\n" +
  'Each function call should be enclosed within <tool_call> </tool_call> XML tags.\n' +
  "Example:\n<tool_call>\n{'name': <function-name>,'arguments': <args-dict>}\n</tool_call>";

/**
 * The fixed Hermes function-calling system turn listing `tools` in the order given (upstream: the
 * tools offered to the model, sorted by name). It is not the agent's real system prompt.
 */
export function hermesSystemPrompt(tools: readonly ToolDefinition[]): string {
  let prompt = SYSTEM_PROMPTS.get(tools);
  if (prompt === undefined) {
    prompt = renderSystemPrompt(tools);
    SYSTEM_PROMPTS.set(tools, prompt);
  }
  return prompt;
}

/** The system turn of each tool list seen: a run passes the same list for every prompt of a toolset choice. */
const SYSTEM_PROMPTS = new WeakMap<readonly ToolDefinition[], string>();

function renderSystemPrompt(tools: readonly ToolDefinition[]): string {
  const listed = tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.parameters ?? {},
    required: null,
  }));
  return SYSTEM_PROMPT_HEAD + pythonJsonDumps(listed) + SYSTEM_PROMPT_TAIL;
}

/**
 * `messages[0]` must be the user prompt: it is skipped, and `userQuery` (the raw dataset prompt) is the
 * human turn instead. Tool results are named by their POSITION after the assistant message, as
 * upstream does, not by tool_call_id; results beyond the calls are named "unknown". System messages
 * and tool messages that do not follow an assistant's tool calls are dropped.
 */
export function toShareGpt(messages: readonly ChatMessage[], userQuery: string, tools: readonly ToolDefinition[]): Turn[] {
  const turns: Turn[] = [
    { from: 'system', value: hermesSystemPrompt(tools) },
    { from: 'human', value: userQuery },
  ];
  let i = 1;
  while (i < messages.length) {
    const msg = messages[i] as ChatMessage;
    i += 1;
    if (msg.role === 'user') {
      turns.push({ from: 'human', value: msg.content });
    } else if (msg.role === 'assistant') {
      turns.push({ from: 'gpt', value: gptValueFromAssistant(msg) });
      if (validToolCalls(msg).length === 0) continue;
      const results: ToolMessage[] = [];
      for (let next = messages[i]; next?.role === 'tool'; next = messages[i]) {
        results.push(next);
        i += 1;
      }
      if (results.length > 0) turns.push({ from: 'tool', value: toolTurnValue(msg, results) });
    }
  }
  return turns;
}

function toolTurnValue(assistant: AssistantMessage, results: readonly ToolMessage[]): string {
  const calls = validToolCalls(assistant);
  return results
    .map((result, k) => {
      const response = {
        tool_call_id: result.tool_call_id ?? '',
        name: calls[k]?.function.name ?? 'unknown',
        content: parseJsonLookingContent(result.content ?? null),
      };
      return `<tool_response>\n${pythonJsonDumps(response)}\n</tool_response>`;
    })
    .join('\n');
}

/** A string that looks like a JSON object or array is embedded as JSON (numbers as received); anything else as it is. */
function parseJsonLookingContent(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  const start = pythonStripStart(content)[0];
  if (start !== '{' && start !== '[') return content;
  try {
    return parseJsonLossless(content);
  } catch {
    return content;
  }
}

/**
 * The tools listed by a system turn that is exactly the fixed Hermes template (hermesSystemPrompt's
 * output), or null when the turn is anything else (a real system prompt is then kept as it is).
 */
export function hermesSystemPromptTools(value: string): unknown[] | null {
  if (!value.startsWith(SYSTEM_PROMPT_HEAD) || !value.endsWith(SYSTEM_PROMPT_TAIL)) return null;
  try {
    const list: unknown = JSON.parse(value.slice(SYSTEM_PROMPT_HEAD.length, value.length - SYSTEM_PROMPT_TAIL.length));
    return Array.isArray(list) ? list : null;
  } catch {
    return null;
  }
}
