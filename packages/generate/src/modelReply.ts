// Reads a chat-completion response into the agent's internal assistant message. Endpoints differ in
// where they put reasoning (docs/rules.md#think-blocks): core's extractReasoning finds it and moves
// inline <think>/<REASONING_SCRATCHPAD> blocks out of the content, so every source ends up as the
// message's `reasoning`: a top-level `thinking` field or `thinking_blocks`, what a gateway moved into
// `provider_specific_fields` (LiteLLM's `reasoning_content` and `thinking_blocks`), and
// Anthropic-compatible `thinking` content blocks included (REASONING_FIELDS names them all). A body
// that is not a completion (an HTML page, an error object with status 200) is an InvalidReplyError
// that says what came back. A tool call without a name string (`"name": null`) is kept with an
// empty name, so the loop answers it as an invalid call instead of dropping it.
import { extractReasoning, isPlainObject, type AssistantMessage, type ChatToolCall, type ReasoningDetail, type Usage } from '@hermes-datagen/core';
import type { ChatCompletionAssistantMessageParam } from 'openai/resources/chat/completions';

export class InvalidReplyError extends Error {
  /** What the endpoint answered (text, or the parsed JSON), for the diagnosis. */
  public constructor(
    message: string,
    public readonly body: unknown,
  ) {
    super(message);
    this.name = 'InvalidReplyError';
  }
}

export interface ModelReply {
  message: AssistantMessage;
  finishReason: string | null;
  usage: Usage | undefined;
  /** The reply's `model`: what the gateway served (a fallback shows here); null when it names none. */
  servedModel: string | null;
}

/** Where a reply's reasoning is looked for, for the warning when none is found. */
export const REASONING_FIELDS =
  'message.reasoning, reasoning_content, reasoning_details, thinking, thinking_blocks, provider_specific_fields.{reasoning_content, thinking_blocks}, "thinking" content blocks, and inline <think> tags in the content';

/** `turn` numbers the reply within its run; it makes up unique ids for calls that come without one. */
export function readModelReply(body: unknown, turn: number): ModelReply {
  const choice = firstChoice(body);
  const raw = choice['message'];
  if (!isPlainObject(raw)) throw new InvalidReplyError('the endpoint answered with a choice that has no message', body);
  const moved = isPlainObject(raw['provider_specific_fields']) ? raw['provider_specific_fields'] : {};
  const draft: AssistantMessage = {
    role: 'assistant',
    content: contentText(raw['content']),
    reasoning: text(raw['reasoning']) ?? text(moved['reasoning']),
    reasoning_content: text(raw['reasoning_content']) ?? text(moved['reasoning_content']),
    reasoning_details: reasoningDetails(raw, moved),
  };
  const { reasoning, content } = extractReasoning(draft);
  const finishReason = typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : null;
  const message: AssistantMessage = { role: 'assistant', content, reasoning, finish_reason: finishReason };
  const toolCalls = Array.isArray(raw['tool_calls']) ? raw['tool_calls'].filter(isPlainObject) : [];
  if (toolCalls.length > 0) message.tool_calls = toolCalls.map((call, index) => toolCall(call, `call_${turn}_${index}`));
  const served = isPlainObject(body) ? text(body['model']) : null;
  return { message, finishReason, usage: readUsage(isPlainObject(body) ? body['usage'] : undefined), servedModel: served === '' ? null : served };
}

/** What goes back to the endpoint in later requests: the standard fields only. */
export function wireAssistantMessage(message: AssistantMessage): ChatCompletionAssistantMessageParam {
  const calls = message.tool_calls ?? [];
  return {
    role: 'assistant',
    content: message.content ?? '',
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: argumentsText(call) } })),
        }
      : {}),
  };
}

export function addUsage(total: Usage, usage: Usage | undefined): Usage {
  if (usage === undefined) return total;
  return {
    prompt_tokens: total.prompt_tokens + usage.prompt_tokens,
    completion_tokens: total.completion_tokens + usage.completion_tokens,
    total_tokens: total.total_tokens + usage.total_tokens,
  };
}

export const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

function firstChoice(body: unknown): Record<string, unknown> {
  if (typeof body === 'string') {
    const start = body.trimStart().slice(0, 80).replace(/\s+/g, ' ');
    throw new InvalidReplyError(
      `the endpoint answered with text, not a chat completion (it starts "${start}"); the base URL may point at a web page instead of an OpenAI-compatible API`,
      body,
    );
  }
  const choices = isPlainObject(body) ? body['choices'] : undefined;
  if (!Array.isArray(choices) || choices.length === 0 || !isPlainObject(choices[0])) {
    const detail = isPlainObject(body) && isPlainObject(body['error']) && typeof body['error']['message'] === 'string' ? `: ${body['error']['message']}` : '';
    throw new InvalidReplyError(`the endpoint answered without choices${detail}`, body);
  }
  return choices[0];
}

/** A string, or the text parts of a content array (some providers send parts). */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.flatMap((part: unknown) => (isPlainObject(part) && part['type'] === 'text' && typeof part['text'] === 'string' ? [part['text']] : []));
  return texts.length > 0 ? texts.join('') : null;
}

/**
 * reasoning_details, with one more detail for each other place a provider or gateway puts thinking:
 * a top-level `thinking` text, `thinking_blocks` (top-level or moved into provider_specific_fields),
 * and Anthropic-style `{"type": "thinking", "thinking": ...}` parts of the content.
 */
function reasoningDetails(raw: Record<string, unknown>, moved: Record<string, unknown>): ReasoningDetail[] | null {
  const details = Array.isArray(raw['reasoning_details']) ? (raw['reasoning_details'] as ReasoningDetail[]) : [];
  const thinking = typeof raw['thinking'] === 'string' ? [{ type: 'thinking', thinking: raw['thinking'] }] : [];
  const blocks = [raw['thinking_blocks'], moved['thinking_blocks'], raw['content']].flatMap(thinkingBlocks);
  const all = [...details, ...thinking, ...blocks];
  return all.length > 0 ? all : null;
}

/** The `thinking` blocks of a list (Anthropic's content blocks, LiteLLM's thinking_blocks); none for anything else. */
function thinkingBlocks(list: unknown): ReasoningDetail[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((block: unknown) =>
    isPlainObject(block) && block['type'] === 'thinking' && typeof block['thinking'] === 'string' ? [{ type: 'thinking', thinking: block['thinking'] }] : [],
  );
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

// Some providers omit call ids; a tool message must answer a call by id, so one is made up. A call
// without a name string gets an empty one: checkToolCall answers it as an invalid call.
function toolCall(call: Record<string, unknown>, fallbackId: string): ChatToolCall {
  const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : fallbackId;
  const fn = isPlainObject(call['function']) ? call['function'] : {};
  const args = fn['arguments'];
  return {
    id,
    type: 'function',
    function: { name: typeof fn['name'] === 'string' ? fn['name'] : '', arguments: typeof args === 'string' || isPlainObject(args) ? args : '' },
  };
}

function argumentsText(call: ChatToolCall): string {
  return typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments);
}

function readUsage(usage: unknown): Usage | undefined {
  if (!isPlainObject(usage)) return undefined;
  const count = (key: string): number => (typeof usage[key] === 'number' && Number.isFinite(usage[key]) ? Math.max(0, Math.round(usage[key] as number)) : 0);
  const prompt = count('prompt_tokens');
  const completion = count('completion_tokens');
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: count('total_tokens') || prompt + completion };
}
