// A fetch for the model client, over node:http / node:https with keep-alive connections. Node 20's
// built-in fetch runs every request through Web streams and costs about a millisecond of CPU more
// per call than node:http (measured by bench/generate.mjs); at 32 concurrent agents that is the
// difference between waiting on the model and waiting on our own CPU. The response is read whole
// before it is returned: chat completions here are not streamed, and a complete body is what the
// client parses anyway.
//
// Connections: a bounded keep-alive pool per host (maxConnections; a request beyond it waits for a
// free connection instead of opening one per prompt in flight). Common servers close an idle
// connection after 5 s (Node's and uvicorn's default); reusing one the server has just closed ends
// in ECONNRESET. So an idle connection is closed after idleSocketMs (4 s), and, because a stalled
// event loop runs that timer late, one idle for that long by the clock is never reused either.
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
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

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The bytes of each response made here, which a wrapper can read without consuming the body (bufferedBody). */
const BODIES = new WeakMap<Response, Buffer>();

/**
 * The whole body of a response nodeHttpFetch made, without consuming it; undefined for any other
 * response. A wrapper that only looks at the body can then pass the response on as it is, instead
 * of reading it and building another (about as much CPU as the rest of the call).
 */
export function bufferedBody(response: Response): Buffer | undefined {
  return BODIES.get(response);
}

export function nodeHttpFetch(options: HttpFetchOptions = {}): FetchLike {
  const idleMs = options.idleSocketMs ?? DEFAULT_IDLE_SOCKET_MS;
  const settings = {
    keepAlive: true,
    maxSockets: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxFreeSockets: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    timeout: idleMs,
  };
  const agents = { http: trackIdle(new HttpAgent(settings)), https: trackIdle(new HttpsAgent(settings)) };
  return async (input, init = {}) => {
    if (input instanceof Request) throw new TypeError('nodeHttpFetch takes a URL and init, not a Request');
    const url = new URL(input);
    const body = requestBody(init.body);
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (send === undefined) throw new TypeError(`nodeHttpFetch supports http: and https: URLs, not ${url.protocol}`);
    // The client hands over a Headers already: read it as it is rather than copy it into another.
    const headers = Object.fromEntries(init.headers instanceof Headers ? init.headers : new Headers(init.headers));
    if (body !== undefined) headers['content-length'] = String(body.length);
    const agent = url.protocol === 'https:' ? agents.https : agents.http;
    closeStale(agent, idleMs);
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, { method: init.method ?? 'GET', headers, agent });
      // Settle on the abort itself, not on an event of the destroyed request: a request still queued
      // for one of the pool's connections may emit none, and its caller would wait for ever.
      const onAbort = (): void => {
        const error = abortError(signal?.reason);
        req.destroy(error);
        reject(error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
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
          const status = res.statusCode ?? 0;
          const bytes = NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks);
          const response = new Response(bytes, { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res) });
          if (bytes !== null) BODIES.set(response, bytes);
          resolve(response);
        });
      });
      req.end(body);
    });
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

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** What fetch rejects with on abort: the client tells an abort from a network failure by this name. */
function abortError(reason: unknown): Error {
  const error = new Error(reason instanceof Error ? reason.message : 'This operation was aborted');
  error.name = 'AbortError';
  return error;
}
