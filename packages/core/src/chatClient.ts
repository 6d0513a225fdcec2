// The model client every model call uses, built from the resolved endpoint: one POST of chat
// completions to the one endpoint's URL, over the endpoint's transport (node:http, or undici
// through the endpoint's proxy), with the openai package's types and error classes. It does
// what openai@6's client did for these calls, less its per-request machinery (header merging,
// request logging, a Response and Web stream per reply: about 0.6 ms of CPU a call, at hundreds of
// calls a second the most of a gateway-scale run's CPU; bench/generate-run.mjs):
// - retries (maxRetries) of a connection failure, a timeout, 408, 409, 429 and 5xx (or as the
//   server's x-should-retry says), after the server's Retry-After, capped (openai@6 alone sleeps for
//   whatever the server says), else a jittered exponential backoff;
// - a timeout per attempt; an abort of the caller's signal is an APIUserAbortError;
// - an error status is the APIError subclass openai gives it, with the response's headers and body;
// - a 200 that is no completion is the failure it stands for (a body cut short: 502; an error
//   object in its place: the status its code names), so the one retry policy covers it;
// - nothing is read from process.env behind the endpoint's back.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { VERSION } from './cli.js';
import {
  abortError,
  fetchHeaders,
  nodeHttpTransport,
  transportFetch,
  TransportTimeoutError,
  type FetchLike,
  type HttpFetchOptions,
  type Transport,
  type TransportResponse,
} from './httpFetch.js';
import { readGatewayError } from './gatewayErrors.js';
import { headerValues } from './requestHeaders.js';
import { isPlainObject } from './plainObject.js';
import type { Endpoint } from './endpoint.js';
import { pause } from './pause.js';

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

/** What one request may set beside its body. */
export interface ChatRequestOptions {
  readonly signal?: AbortSignal | undefined;
  /** Per attempt, in ms (the client's timeoutMs otherwise). */
  readonly timeout?: number | undefined;
  readonly maxRetries?: number | undefined;
  /** Sent beside the client's own headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Told when the request starts and stops waiting (for a rate limiter, a backoff, a Retry-After), never during an attempt. */
  readonly waits?: WaitTracker | undefined;
  /** Which agent call this is (its record id, and the call's index in that agent's run): a batch API client names the request by it. */
  readonly call?: { readonly id: string; readonly turn: number } | undefined;
}

/** Hears of a request's waits: a clock of the caller's own work stops while any of its requests waits. */
export interface WaitTracker {
  begin(): void;
  end(): void;
}

/** What a caller of a model needs: the completion of one chat request (the CLIs never stream). */
export interface ChatClient {
  readonly chat: { readonly completions: { create(body: ChatCompletionCreateParamsNonStreaming, options?: ChatRequestOptions): Promise<ChatCompletion> } };
}

/** The headers of a response, read by name (fetch's Headers is one). */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/** A request's completion with the status and headers it came with (rate-limit headers, for one). */
export interface ChatReply {
  readonly data: ChatCompletion;
  readonly status: number;
  readonly headers: ResponseHeaders;
}

/** A request of the endpoint's client: awaited, the completion; withResponse(), the completion with its status and headers. */
export interface ChatRequest extends Promise<ChatCompletion> {
  withResponse(): Promise<ChatReply>;
}

/** The endpoint's client (createChatClient): its requests also give their status and headers. */
export interface EndpointChatClient extends ChatClient {
  readonly chat: { readonly completions: { create(body: ChatCompletionCreateParamsNonStreaming, options?: ChatRequestOptions): ChatRequest } };
}

interface Settings {
  readonly transport: Transport;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryAfterCapMs: number;
}

/** The chat completions of the endpoint. */
export function createChatClient(endpoint: Endpoint, options: ChatClientOptions = {}): EndpointChatClient {
  const settings: Settings = {
    transport: endpointTransport(endpoint, options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    url: new URL(endpointUrl(endpoint.baseUrl, 'chat/completions')),
    headers: {
      accept: 'application/json',
      'user-agent': `hermes-datagen/${VERSION}`,
      // --header and the provider's headers: (which can set neither the key nor the body's type).
      ...headerValues(endpoint.headers),
      'content-type': 'application/json',
      authorization: `Bearer ${endpoint.apiKey.reveal()}`,
    },
    timeoutMs: options.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_CHAT_MAX_RETRIES,
    retryAfterCapMs: options.retryAfterCapMs ?? DEFAULT_RETRY_AFTER_CAP_MS,
  };
  const create = (body: ChatCompletionCreateParamsNonStreaming, requestOptions: ChatRequestOptions = {}): ChatRequest => {
    const reply = request(settings, body, requestOptions);
    const completion = reply.then(({ data }) => data);
    // A caller that asks only withResponse() leaves this one unawaited; its rejection reaches whoever awaits it.
    completion.catch(() => undefined);
    return Object.assign(completion, { withResponse: () => reply });
  };
  return { chat: { completions: { create } } };
}

async function request(settings: Settings, body: ChatCompletionCreateParamsNonStreaming, options: ChatRequestOptions): Promise<ChatReply> {
  const payload = JSON.stringify(body);
  const headers = options.headers === undefined ? settings.headers : { ...settings.headers, ...options.headers };
  return retrying(() => attemptRequest(settings, payload, headers, options), {
    retries: options.maxRetries ?? settings.maxRetries,
    retryAfterCapMs: settings.retryAfterCapMs,
    signal: options.signal,
    waits: options.waits,
  });
}

export interface RetryOptions {
  /** Retries after the first attempt, at most. */
  readonly retries: number;
  /** The longest a Retry-After may hold a retry back. */
  readonly retryAfterCapMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Told when each wait between attempts starts and ends. */
  readonly waits?: WaitTracker | undefined;
}

/**
 * Runs `attempt` until it succeeds, fails in a way the client does not retry (clientRetries), or has
 * been retried `retries` times; between attempts it waits retryWaitMs (the failure's Retry-After, else
 * a backoff). An abort during a wait rejects with an APIUserAbortError.
 */
export async function retrying<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  for (let tried = 0; ; tried += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= options.retries || !clientRetries(error)) throw error;
      options.waits?.begin();
      try {
        await pause(retryWaitMs(error, tried, options.retryAfterCapMs), options.signal, () => new APIUserAbortError());
      } finally {
        options.waits?.end();
      }
    }
  }
}

async function attemptRequest(settings: Settings, payload: string, headers: Readonly<Record<string, string>>, options: ChatRequestOptions): Promise<ChatReply> {
  const { signal } = options;
  if (signal?.aborted) throw new APIUserAbortError();
  let answer: TransportResponse;
  try {
    answer = await settings.transport(settings.url, { method: 'POST', headers, body: payload, signal, timeoutMs: options.timeout ?? settings.timeoutMs });
  } catch (error) {
    if (signal?.aborted) throw new APIUserAbortError();
    // As openai tells a timeout: its own timer, or a network error that says so (connect ETIMEDOUT).
    if (error instanceof TransportTimeoutError || /timed? ?out/i.test(`${String(error)} ${String((error as Error | undefined)?.cause ?? '')}`)) {
      throw new APIConnectionTimeoutError();
    }
    throw new APIConnectionError({ message: undefined, cause: error instanceof Error ? error : new Error(String(error)) });
  }
  return readReply(answer);
}

/** The reply of an answered request, or the APIError it stands for. */
function readReply(answer: TransportResponse): ChatReply {
  const { status } = answer;
  if (status < 200 || status > 299) throw statusError(status, withoutBom(answer.body.toString('utf8')), fetchHeaders(answer.headers));
  const headers = new NodeHeaders(answer.headers);
  const reply = (data: unknown): ChatReply => ({ data: data as ChatCompletion, status, headers });
  if (status === 204) return reply(null);
  const text = withoutBom(answer.body.toString('utf8'));
  let parsed: { value: unknown } | undefined;
  if (status === 200 && /^\s*[[{]/.test(text)) {
    try {
      parsed = { value: JSON.parse(text) as unknown };
    } catch (error) {
      const message = `the endpoint answered 200 with a body that is not valid JSON (${(error as Error).message}; ${text.length} characters, it may have been cut short)`;
      throw faultError(502, 'malformed', { error: { message, type: 'malformed_reply', body: text.slice(0, 200) } }, answer);
    }
    const embedded = embeddedErrorStatus(parsed.value);
    if (embedded !== undefined) throw faultError(embedded, 'error-in-200', parsed.value, answer);
  }
  // As openai reads a reply: JSON by its media type (an empty one is undefined), any other as text.
  const mediaType = headers.get('content-type')?.split(';')[0]?.trim();
  if (mediaType === undefined || !(mediaType.includes('application/json') || mediaType.endsWith('+json'))) return reply(text);
  if (headers.get('content-length') === '0') return reply(undefined);
  return reply(parsed === undefined ? (JSON.parse(text) as unknown) : parsed.value);
}

/**
 * The APIError subclass of an error status, with the response's body and headers, as openai makes it;
 * a body with its error fields at the top (vLLM's `{"object": "error", "message": ...}`, Portkey's
 * `{"status": "failure", ...}`) is kept whole as the error, where openai would keep nothing of it.
 */
export function statusError(status: number, text: string, headers: Headers): APIError {
  const json = safeJson(text);
  const body = isPlainObject(json) && !('error' in json) ? { error: json } : json;
  return APIError.generate(status, body, json === undefined ? text : undefined, headers);
}

/** The header a 200 turned into a failure carries: what the endpoint really sent. */
export const REPLY_FAULT_HEADER = 'x-hermes-reply-fault';

/** A 200 that stands for a failure, as the error of the status it stands for. */
function faultError(status: number, fault: 'malformed' | 'error-in-200', body: unknown, answer: TransportResponse): APIError {
  const headers = fetchHeaders(answer.headers);
  headers.set(REPLY_FAULT_HEADER, fault);
  // The status decides whether the client retries (a 401 inside a 200 is not retried).
  headers.delete('x-should-retry');
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  return APIError.generate(status, body as object, undefined, headers);
}

function safeJson(text: string): object | undefined {
  try {
    return JSON.parse(text) as object;
  } catch {
    return undefined;
  }
}

/** node:http's header object read like fetch Headers: a repeated header's values joined. */
class NodeHeaders implements ResponseHeaders {
  public constructor(private readonly incoming: TransportResponse['headers']) {}

  public get(name: string): string | null {
    const value = this.incoming[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/**
 * What the client retries: no answer, 408, 409, 429, 5xx, or as the server's x-should-retry says; never
 * an abort, nor a refusal the gateway-error table says needs a fix (a billing 429: insufficient_quota).
 * The one retry decision of every model call (run mode's limitedClient.ts asks it too).
 */
export function clientRetries(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || error.status === undefined) return false;
  if (readGatewayError(error.status, { error: error.error })?.retry === false) return false;
  const header = error.headers?.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

/** The wait before retry `attempt` (0-based): the server's Retry-After up to the cap, else openai's backoff (0.5 s x 2^attempt, at most 8 s, less up to 25% jitter). */
export function retryWaitMs(error: unknown, attempt: number, capMs: number, random: () => number = Math.random): number {
  const asked = error instanceof APIError && error.headers ? headerRetryAfterMs(error.headers, Date.now()) : undefined;
  if (asked !== undefined) return Math.min(asked, capMs);
  return Math.min(0.5 * 2 ** attempt, 8) * (1 - random() * 0.25) * 1000;
}

/** retry-after-ms, else Retry-After (seconds or an HTTP date), in ms from now; undefined when absent. */
export function headerRetryAfterMs(headers: ResponseHeaders, now: number): number | undefined {
  const millis = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(millis)) return Math.max(0, millis);
  const value = headers.get('retry-after');
  const ms = value === null ? NaN : retryAfterMs(value, now);
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/** The URL of an API path under the base URL, joined as the client joins it. */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The HTTP of the endpoint: through its proxy when one applies (Node's own fetch ignores proxy variables), else node:http. */
export function endpointTransport(endpoint: Pick<Endpoint, 'proxy'>, options: HttpFetchOptions = {}): Transport {
  if (!endpoint.proxy) return nodeHttpTransport(options);
  const proxy = endpoint.proxy.url.href;
  // undici (about 0.1 s of CPU to load) only when a proxy is in use, at the first request through it.
  let undici: Promise<{ fetch: typeof import('undici').fetch; dispatcher: import('undici').ProxyAgent }> | undefined;
  return async (url, request) => {
    undici ??= import('undici').then(({ fetch, ProxyAgent }) => ({ fetch, dispatcher: new ProxyAgent(proxy) }));
    const { fetch, dispatcher } = await undici;
    // The deadline is a timer of its own, as in nodeHttpTransport, not AbortSignal.timeout: Node 20's
    // AbortSignal.any holds its sources weakly, and a collected timeout signal never fires (compress/stream.ts).
    const deadline = new AbortController();
    const timer = request.timeoutMs === undefined ? undefined : setTimeout(() => deadline.abort(), request.timeoutMs);
    try {
      const response = await fetch(url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: request.signal === undefined ? deadline.signal : AbortSignal.any([request.signal, deadline.signal]),
        dispatcher,
      });
      const body = Buffer.from(await response.arrayBuffer());
      return { status: response.status, statusText: response.statusText, headers: Object.fromEntries(response.headers), body };
    } catch (error) {
      if (request.signal?.aborted) throw abortError(request.signal.reason);
      if (deadline.signal.aborted) throw new TransportTimeoutError(request.timeoutMs ?? 0);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}

/** fetch that goes through the endpoint's proxy when one applies (for requests other than chat completions). */
export function endpointFetch(endpoint: Pick<Endpoint, 'proxy'>, options: HttpFetchOptions = {}): FetchLike {
  return transportFetch(endpointTransport(endpoint, options));
}

/** A Retry-After value (seconds or an HTTP date) in milliseconds from now; NaN when it is neither. */
export function retryAfterMs(value: string, now: number): number {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  return Date.parse(trimmed) - now;
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
