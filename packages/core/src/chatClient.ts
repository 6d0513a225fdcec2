// The OpenAI client every model call uses, built from the resolved endpoint. Two things differ from a
// plain `new OpenAI()`: nothing is read from process.env behind the endpoint's back, and a server's
// Retry-After is honoured only up to a cap (openai@6 alone sleeps for whatever the server says), and
// a 200 that is no completion is turned into the failure it stands for (surfaceReplyFaults), so the
// client's one retry policy covers it.
import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { bufferedBody, nodeHttpFetch, type FetchLike, type HttpFetchOptions } from './httpFetch.js';
import { isPlainObject } from './plainObject.js';
import type { Endpoint } from './endpoint.js';

export const DEFAULT_RETRY_AFTER_CAP_MS = 30_000;
export const DEFAULT_CHAT_TIMEOUT_MS = 120_000;
export const DEFAULT_CHAT_MAX_RETRIES = 2;

export interface ChatClientOptions {
  /** Per attempt. */
  readonly timeoutMs?: number;
  /** The client's own retries (0 disables them). */
  readonly maxRetries?: number;
  /** The longest wait a Retry-After header can ask for. */
  readonly retryAfterCapMs?: number;
  /** Connections held to the endpoint at most (a request beyond waits for a free one). */
  readonly maxConnections?: number;
}

/** What a caller of a model needs: the completion of one chat request (the CLIs never stream). */
export interface ChatClient {
  readonly chat: { readonly completions: { create(body: ChatCompletionCreateParamsNonStreaming, options?: OpenAI.RequestOptions): Promise<ChatCompletion> } };
}

/** A request of the endpoint's client: awaited, the completion; withResponse(), the completion with its HTTP response. */
export interface ChatRequest extends Promise<ChatCompletion> {
  withResponse(): Promise<{ data: ChatCompletion; response: Response }>;
}

/** The endpoint's client (createChatClient): its requests also give their HTTP response (status, rate-limit headers). */
export interface EndpointChatClient extends ChatClient {
  readonly chat: { readonly completions: { create(body: ChatCompletionCreateParamsNonStreaming, options?: OpenAI.RequestOptions): ChatRequest } };
}

/**
 * The chat completions of the endpoint. openai (about 0.1 s of CPU to load) is imported, and the
 * client made, at the first request, so a process that makes none (a resume with nothing left to
 * run) never loads it. A request is the client's own: awaited it gives the completion, and
 * withResponse() gives it with the HTTP response.
 */
export function createChatClient(endpoint: Endpoint, options: ChatClientOptions = {}): EndpointChatClient {
  let client: Promise<OpenAI> | undefined;
  const load = (): Promise<OpenAI> =>
    (client ??= import('openai').then(
      ({ default: OpenAI }) =>
        new OpenAI({
          baseURL: endpoint.baseUrl,
          apiKey: endpoint.apiKey.reveal(),
          // Explicit nulls, because undefined would make the client read OPENAI_ORG_ID / OPENAI_PROJECT_ID.
          organization: null,
          project: null,
          adminAPIKey: null,
          timeout: options.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS,
          maxRetries: options.maxRetries ?? DEFAULT_CHAT_MAX_RETRIES,
          fetch: capRetryAfter(
            surfaceReplyFaults(endpointFetch(endpoint, options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections })),
            options.retryAfterCapMs ?? DEFAULT_RETRY_AFTER_CAP_MS,
          ),
          // Its info level logs to stdout, which carries JSONL; failures reach the caller as exceptions anyway.
          logLevel: 'off',
        }),
    ));
  const create = (body: ChatCompletionCreateParamsNonStreaming, requestOptions?: OpenAI.RequestOptions): ChatRequest => {
    // Wrapped, so that the client's request is not awaited (and its reply parsed) by this promise.
    const request = load().then((openai) => ({ reply: openai.chat.completions.create(body, requestOptions) }));
    const completion = request.then(({ reply }) => reply);
    // A caller that asks only withResponse() leaves this one unawaited; its rejection reaches whoever awaits it.
    completion.catch(() => undefined);
    return Object.assign(completion, { withResponse: () => request.then(({ reply }) => reply.withResponse()) });
  };
  return { chat: { completions: { create } } };
}

/** The URL of an API path under the base URL, joined as the client joins it. */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** fetch that goes through the endpoint's proxy when one applies (Node's own fetch ignores proxy variables). */
export function endpointFetch(endpoint: Pick<Endpoint, 'proxy'>, options: HttpFetchOptions = {}): FetchLike {
  // node:http costs about a millisecond of CPU less per call than the built-in fetch (httpFetch.ts).
  if (!endpoint.proxy) return nodeHttpFetch(options);
  const proxy = endpoint.proxy.url.href;
  // undici (about 0.1 s of CPU to load) only when a proxy is in use, at the first request through it.
  let undici: Promise<{ fetch: typeof import('undici').fetch; dispatcher: import('undici').ProxyAgent }> | undefined;
  return async (input, init) => {
    undici ??= import('undici').then(({ fetch, ProxyAgent }) => ({ fetch, dispatcher: new ProxyAgent(proxy) }));
    const { fetch, dispatcher } = await undici;
    // undici 7's Request/Response types and @types/node's (undici-types 6) describe the same fetch API.
    return fetch(input as Parameters<typeof fetch>[0], { ...(init as Parameters<typeof fetch>[1]), dispatcher }) as Promise<Response>;
  };
}

/** fetch whose responses never ask for a longer wait than capMs (retry-after and retry-after-ms). */
export function capRetryAfter(inner: FetchLike, capMs: number): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    const headers = cappedRetryHeaders(response.headers, capMs, Date.now());
    if (!headers) return response;
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The headers with any wait beyond the cap brought down to it; undefined when none needs it. */
export function cappedRetryHeaders(headers: Headers, capMs: number, now: number): Headers | undefined {
  const millis = headers.get('retry-after-ms');
  const seconds = headers.get('retry-after');
  const overMillis = millis !== null && Number.parseFloat(millis) > capMs;
  const overSeconds = seconds !== null && retryAfterMs(seconds, now) > capMs;
  if (!overMillis && !overSeconds) return undefined;
  const capped = new Headers(headers);
  if (overMillis) capped.set('retry-after-ms', String(capMs));
  if (overSeconds) capped.set('retry-after', String(capMs / 1000));
  return capped;
}

/** A Retry-After value (seconds or an HTTP date) in milliseconds from now; NaN when it is neither. */
export function retryAfterMs(value: string, now: number): number {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  return Date.parse(trimmed) - now;
}

/** The header a response rewritten by surfaceReplyFaults carries: what the endpoint really sent. */
export const REPLY_FAULT_HEADER = 'x-hermes-reply-fault';

/**
 * fetch whose 200 replies are completions or the failure they stand for. A body cut short or not
 * valid JSON (a connection dropped mid-body, a broken proxy) is an endpoint fault: a 502 the client
 * retries, whose error keeps the start of what came. An error object in place of a completion
 * (`{"error": {"code": 429, …}}`, as some gateways send) gets the status its code names, so a rate
 * limit is retried like a 429; without a status code it is a 502. HTML and other text pass through:
 * no retry mends a base URL that points at a web page.
 */
export function surfaceReplyFaults(inner: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status !== 200) return response;
    // A body nodeHttpFetch holds is read without consuming it: a completion then goes on as it came.
    const buffered = bufferedBody(response);
    const text = buffered === undefined ? await response.text() : withoutBom(buffered.toString('utf8'));
    const unchanged = (): Response => (buffered === undefined ? rebuilt(text, 200) : response);
    const rebuilt = (body: string, status: number, fault?: string): Response => {
      const headers = new Headers(response.headers);
      if (fault !== undefined) {
        headers.set(REPLY_FAULT_HEADER, fault);
        // The status decides whether the client retries (a 401 inside a 200 is not retried).
        headers.delete('x-should-retry');
        headers.set('content-type', 'application/json');
        headers.delete('content-length');
      }
      return new Response(body, { status, statusText: fault === undefined ? response.statusText : '', headers });
    };
    if (!/^\s*[[{]/.test(text)) return unchanged();
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      const message = `the endpoint answered 200 with a body that is not valid JSON (${(error as Error).message}; ${text.length} characters, it may have been cut short)`;
      return rebuilt(JSON.stringify({ error: { message, type: 'malformed_reply', body: text.slice(0, 200) } }), 502, 'malformed');
    }
    const status = embeddedErrorStatus(value);
    if (status === undefined) return unchanged();
    return rebuilt(text, status, 'error-in-200');
  };
}

/** The text as Response.text() decodes it: UTF-8 without a leading byte order mark. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The status a 200 body without `choices` but with an `error` object stands for: its numeric code
 * when that is an HTTP error status (OpenRouter-style `{"error": {"code": 429}}`), else 502.
 * Undefined for any other body.
 */
export function embeddedErrorStatus(body: unknown): number | undefined {
  if (!isPlainObject(body) || Array.isArray(body['choices']) || !('error' in body) || body['error'] === null) return undefined;
  const error = body['error'];
  const codes = isPlainObject(error) ? [error['code'], error['status']].map(Number) : [];
  return codes.find((code) => Number.isInteger(code) && code >= 400 && code <= 599) ?? 502;
}
