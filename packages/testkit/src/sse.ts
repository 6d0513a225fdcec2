// Server-sent events for `stream: true`: a completion cut into chat.completion.chunk deltas the way
// providers send them (role first, then reasoning, content, tool-call argument pieces, finish, usage).
import type { AssistantMessage, Completion, CompletionUsage } from './reply.js';
import type { FinishReason } from './script.js';

type Delta = Partial<Omit<AssistantMessage, 'tool_calls' | 'reasoning_details'>> & {
  tool_calls?: ToolCallDelta[];
  reasoning_details?: { type: 'reasoning.summary'; summary: string; index: number }[];
};

interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string | null; arguments: string };
}

export interface CompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: 0; delta: Delta; finish_reason: FinishReason | null }[];
  usage?: CompletionUsage | null;
}

const WORDS_PER_PIECE = 3;
const ARGUMENT_PIECES = 3;

/** Text in pieces of a few words each, whitespace kept, so the pieces join back to the text. */
export function wordPieces(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_PIECE) pieces.push(words.slice(i, i + WORDS_PER_PIECE).join(''));
  return pieces;
}

/** Tool-call arguments in a few pieces of about equal length, cut anywhere (even inside a JSON string). */
export function argumentPieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / ARGUMENT_PIECES));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function reasoningDeltas(message: AssistantMessage): Delta[] {
  if (message.reasoning !== undefined) return wordPieces(message.reasoning).map((reasoning) => ({ reasoning }));
  if (message.reasoning_content !== undefined) {
    return wordPieces(message.reasoning_content).map((piece) => ({ reasoning_content: piece }));
  }
  return (message.reasoning_details ?? []).flatMap((detail, index) =>
    wordPieces(detail.summary).map((summary) => ({ reasoning_details: [{ type: detail.type, summary, index }] })),
  );
}

function toolCallDeltas(message: AssistantMessage): Delta[] {
  return (message.tool_calls ?? []).flatMap((call, index): Delta[] => [
    { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] },
    ...argumentPieces(call.function.arguments).map((piece) => ({ tool_calls: [{ index, function: { arguments: piece } }] })),
  ]);
}

export function completionChunks(completion: Completion, includeUsage: boolean): CompletionChunk[] {
  const { message, finish_reason } = completion.choices[0];
  const deltas: Delta[] = [
    { role: 'assistant', content: '' },
    ...reasoningDeltas(message),
    // Streamed, content blocks are their text (the CLIs never stream; the testkit's SSE serves other clients).
    ...wordPieces(
      typeof message.content === 'string' ? message.content : (message.content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
    ).map((content) => ({ content })),
    ...toolCallDeltas(message),
  ];
  const chunk = (delta: Delta, finish: FinishReason | null): CompletionChunk => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks = [...deltas.map((delta) => chunk(delta, null)), chunk({}, finish_reason)];
  if (includeUsage) chunks.push({ ...chunk({}, null), choices: [], usage: completion.usage });
  return chunks;
}

export function sseFrame(data: CompletionChunk | '[DONE]'): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
