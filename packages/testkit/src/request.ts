// The parts of a chat-completions request the endpoint reads. Everything it answers is a function of the
// request alone (first user message, number of assistant messages, tools offered), so it keeps no
// conversation state and parallel conversations cannot disturb each other.

export interface WireToolCall {
  id: string;
  type: 'function';
  /** null only in a reply scripted to send `"name": null`. */
  function: { name: string | null; arguments: string };
}

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface OfferedTool {
  type: string;
  function?: { name?: string };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: OfferedTool[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
}

/** Returns the request, or what is wrong with it (answered as 400). */
export function parseChatRequest(body: unknown): ChatRequest | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the request body must be a JSON object';
  const request = body as Partial<ChatRequest>;
  if (typeof request.model !== 'string' || request.model === '') return '"model" is required';
  if (!Array.isArray(request.messages) || request.messages.length === 0) return '"messages" must be a non-empty array';
  if (!request.messages.every((m) => typeof m === 'object' && m !== null && typeof m.role === 'string')) {
    return 'every message needs a "role"';
  }
  if (request.tools !== undefined && !Array.isArray(request.tools)) return '"tools" must be an array';
  return request as ChatRequest;
}

/** The text of a message's content: a string, or the text parts of a content array. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '',
    )
    .join('');
}

export function firstUserText(request: ChatRequest): string {
  const first = request.messages.find((m) => m.role === 'user');
  return first ? textOf(first.content) : '';
}

/** The step of a conversation: how many assistant messages the request already holds. */
export function stepOf(request: ChatRequest): number {
  return request.messages.filter((m) => m.role === 'assistant').length;
}

export function offeredToolNames(request: ChatRequest): string[] {
  return (request.tools ?? []).flatMap((tool) => (typeof tool.function?.name === 'string' ? [tool.function.name] : []));
}
