// A fetch for the model client, over node:http / node:https with keep-alive connections. Node 20's
// built-in fetch runs every request through Web streams and costs about a millisecond of CPU more
// per call than node:http (measured by bench/generate.mjs); at 32 concurrent agents that is the
// difference between waiting on the model and waiting on our own CPU. The response is read whole
// before it is returned: chat completions here are not streamed, and a complete body is what the
// client parses anyway.
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { FetchLike } from './chatClient.js';

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export function nodeHttpFetch(): FetchLike {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return async (input, init = {}) => {
    if (input instanceof Request) throw new TypeError('nodeHttpFetch takes a URL and init, not a Request');
    const url = new URL(input);
    const body = requestBody(init.body);
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (send === undefined) throw new TypeError(`nodeHttpFetch supports http: and https: URLs, not ${url.protocol}`);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    if (body !== undefined) headers['content-length'] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, { method: init.method ?? 'GET', headers, agent: url.protocol === 'https:' ? agents.https : agents.http });
      const onAbort = (): void => {
        req.destroy(abortError(signal?.reason));
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
          resolve(new Response(NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res) }));
        });
      });
      req.end(body);
    });
  };
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
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
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
