// Turns a scripted reply into the chat.completion object the endpoint sends (and streams).
import { sha256Hex } from './fingerprint.js';
import type { WireToolCall } from './request.js';
import type { FinishReason, ReasoningField, ScriptedReply } from './script.js';

export interface ReasoningDetail {
  type: 'reasoning.summary';
  summary: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  reasoning?: string;
  reasoning_content?: string;
  /** A top-level `thinking` field, as some providers send reasoning. */
  thinking?: string;
  reasoning_details?: ReasoningDetail[];
  tool_calls?: WireToolCall[];
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface Completion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [{ index: 0; message: AssistantMessage; finish_reason: FinishReason; logprobs: null }];
  usage: CompletionUsage;
}

export interface RenderContext {
  model: string;
  /** A digest of the conversation (model, messages, tools): ids derive from it, so the same conversation gets the same ids. */
  requestDigest: string;
  /** Length of the request's messages as JSON, for the usage estimate. */
  promptChars: number;
  reasoningField: ReasoningField;
}

const INLINE_TAGS: Partial<Record<ReasoningField, string>> = {
  inline_think: 'think',
  inline_scratchpad: 'REASONING_SCRATCHPAD',
};

function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

export function renderMessage(reply: ScriptedReply, context: RenderContext): AssistantMessage {
  const message: AssistantMessage = { role: 'assistant', content: reply.content ?? null };
  const reasoning = reply.reasoning;
  if (reasoning !== undefined) {
    const field = reply.reasoning_field ?? context.reasoningField;
    const tag = INLINE_TAGS[field];
    if (tag !== undefined) message.content = `<${tag}>\n${reasoning}\n</${tag}>\n${message.content ?? ''}`;
    else if (field === 'reasoning_details') message.reasoning_details = [{ type: 'reasoning.summary', summary: reasoning }];
    else message[field as 'reasoning' | 'reasoning_content' | 'thinking'] = reasoning;
  }
  if (reply.tool_calls && reply.tool_calls.length > 0) {
    message.tool_calls = reply.tool_calls.map((call, index) => ({
      id: call.id ?? `call_${sha256Hex(`${context.requestDigest}:${index}`).slice(0, 20)}`,
      type: 'function',
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
    }));
  }
  return message;
}

export function renderCompletion(reply: ScriptedReply, context: RenderContext): Completion {
  const message = renderMessage(reply, context);
  const prompt = reply.usage?.prompt_tokens ?? estimateTokens(context.promptChars);
  const completion = reply.usage?.completion_tokens ?? estimateTokens(JSON.stringify(message).length);
  return {
    id: `chatcmpl-${context.requestDigest.slice(0, 24)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: context.model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: reply.finish_reason ?? (message.tool_calls ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...(reply.usage?.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: reply.usage.cached_tokens } } : {}),
      ...(reply.usage?.cost !== undefined ? { cost: reply.usage.cost } : {}),
    },
  };
}
