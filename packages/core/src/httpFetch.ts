// The HTTP of model calls, over node:http / node:https with keep-alive connections. Node 20's
// built-in fetch runs every request through Web streams and costs about a millisecond of CPU more
// per call than node:http (measured by bench/generate.mjs); at hundreds of calls in flight that is
// the difference between waiting on the model and waiting on our own CPU. A response is read whole
// before it is returned: chat completions here are not streamed, and a complete body is what the
// client parses anyway. The chat client takes the transport's plain answer (status, node's header
// object, the bytes); nodeHttpFetch wraps the same transport as a fetch for the code that wants one.
//
// Connections: a bounded keep-alive pool per host (maxConnections; a request beyond it waits for a
// free connection instead of opening one per prompt in flight). Common servers close an idle
// connection after 5 s (Node's and uvicorn's default); reusing one the server has just closed ends
// in ECONNRESET. So an idle connection is closed after idleSocketMs (4 s), and, because a stalled
// event loop runs that timer late, one idle for that long by the clock is never reused either.
import { request as httpRequest, Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';

/** The fetch signature the OpenAI client takes; every fetch of the endpoint has it. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Below the 5 s keep-alive timeout of common servers. */
export const DEFAULT_IDLE_SOCKET_MS = 4000;
export const DEFAULT_MAX_CONNECTIONS = 64;

export interface HttpFetchOptions {
  /** Connections held per host; more requests at once wait for one. */
  readonly maxConnections?: number;
  /** An idle connection is closed, and never reused, after this long. */
  readonly idleSocketMs?: number;
}

export interface TransportRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer | undefined;
  readonly signal?: AbortSignal | undefined;
  /** No complete response within this long: the request is ended with a TransportTimeoutError. */
  readonly timeoutMs?: number | undefined;
}

/** A whole response: header names lower-case, as node:http gives them. */
export interface TransportResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One request, answered whole; rejects with an AbortError on abort, a TransportTimeoutError on timeout, else the network error. */
export type Transport = (url: URL, request: TransportRequest) => Promise<TransportResponse>;

export class TransportTimeoutError extends Error {
  public constructor(ms: number) {
    super(`no complete response within ${ms} ms (timed out)`);
    this.name = 'TransportTimeoutError';
  }
}

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export function nodeHttpTransport(options: HttpFetchOptions = {}): Transport {
  const idleMs = options.idleSocketMs ?? DEFAULT_IDLE_SOCKET_MS;
  const settings = {
    keepAlive: true,
    maxSockets: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxFreeSockets: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    timeout: idleMs,
  };
  const agents = { http: trackIdle(new HttpAgent(settings)), https: trackIdle(new HttpsAgent(settings)) };
  return (url, request) => {
    const { signal, body, timeoutMs } = request;
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (send === undefined) return Promise.reject(new TypeError(`nodeHttpFetch supports http: and https: URLs, not ${url.protocol}`));
    const headers = body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(body)) };
    const agent = url.protocol === 'https:' ? agents.https : agents.http;
    closeStale(agent, idleMs);
    return new Promise<TransportResponse>((resolve, reject) => {
      const req = send({ ...requestTarget(url), method: request.method, headers, agent });
      // Settle on the abort itself, not on an event of the destroyed request: a request still queued
      // for one of the pool's connections may emit none, and its caller would wait for ever.
      const fail = (error: Error): void => {
        done();
        req.destroy(error);
        reject(error);
      };
      const onAbort = (): void => fail(abortError(signal?.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => fail(new TransportTimeoutError(timeoutMs)), timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      req.on('error', (error) => {
        done();
        reject(error);
      });
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => {
          done();
          reject(error);
        });
        res.on('end', () => {
          done();
          resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) });
        });
      });
      req.end(body);
    });
  };
}

/**
 * node:http's options for a URL, worked out once per URL object: a client sends every request to the
 * same URL, and node converts a URL anew for each request it is given.
 */
const TARGETS = new WeakMap<URL, RequestOptions>();

function requestTarget(url: URL): RequestOptions {
  let target = TARGETS.get(url);
  if (target === undefined) {
    target = urlToHttpOptions(url);
    TARGETS.set(url, target);
  }
  return target;
}

/** A fetch over node:http (see nodeHttpTransport): for callers that want a Response. */
export function nodeHttpFetch(options: HttpFetchOptions = {}): FetchLike {
  return transportFetch(nodeHttpTransport(options));
}

/** The transport as a fetch: a URL and init in, a Response out. */
export function transportFetch(transport: Transport): FetchLike {
  return async (input, init = {}) => {
    if (input instanceof Request) throw new TypeError('nodeHttpFetch takes a URL and init, not a Request');
    const answer = await transport(new URL(input), {
      method: init.method ?? 'GET',
      headers: Object.fromEntries(init.headers instanceof Headers ? init.headers : new Headers(init.headers)),
      body: requestBody(init.body),
      signal: init.signal ?? undefined,
    });
    const bytes = NULL_BODY_STATUSES.has(answer.status) ? null : answer.body;
    return new Response(bytes, { status: answer.status, statusText: answer.statusText, headers: fetchHeaders(answer.headers) });
  };
}

const IDLE_SINCE = Symbol('idleSince');
type TrackedSocket = Socket & { [IDLE_SINCE]?: number };

function trackIdle<A extends HttpAgent>(agent: A): A {
  agent.on('free', (socket: TrackedSocket) => {
    socket[IDLE_SINCE] = Date.now();
  });
  return agent;
}

/**
 * Destroys the free connections idle for idleMs or longer. Free lists are in the order connections
 * became free, so the stale ones lead; the agent skips destroyed sockets at the front of a list.
 */
function closeStale(agent: HttpAgent, idleMs: number): void {
  const now = Date.now();
  for (const free of Object.values(agent.freeSockets)) {
    for (const socket of (free ?? []) as TrackedSocket[]) {
      if (socket.destroyed) continue;
      if (now - (socket[IDLE_SINCE] ?? now) < idleMs) break;
      socket.destroy();
    }
  }
}

function requestBody(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('nodeHttpFetch sends string and byte bodies only');
}

/** node:http's header object as fetch Headers (a repeated header's values joined, as fetch joins them). */
export function fetchHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** What fetch rejects with on abort: the client tells an abort from a network failure by this name. */
export function abortError(reason: unknown): Error {
  const error = new Error(reason instanceof Error ? reason.message : 'This operation was aborted');
  error.name = 'AbortError';
  return error;
}
