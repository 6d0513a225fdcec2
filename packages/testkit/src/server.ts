// The endpoint: a node:http server speaking OpenAI chat completions (JSON and SSE), `GET /models` and the
// batch API (batch.ts), answering from a script, the rule-based policy, and injected faults.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatAnswerer } from './answer.js';
import { BatchApi, type BatchOptions, type BatchStats } from './batch.js';
import { sendFaultAnswer } from './faults.js';
import { redactHeaders, sha256Hex } from './fingerprint.js';
import type { GatewayDialectOptions } from './gatewayDialects.js';
import { readBody, sendError, sendJson, type HeaderMap } from './http.js';
import { Quota, type QuotaOptions } from './quota.js';
import type { Completion } from './reply.js';
import type { ChatRequest } from './request.js';
import { parseScript, type Script } from './script.js';
import { completionChunks, sseFrame } from './sse.js';

export interface ScriptedEndpointOptions extends GatewayDialectOptions {
  /** Without a script (or for prompts no sequence matches) the rule-based policy answers. */
  script?: Script;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default `/v1`. Requests outside it get 404, as a gateway would. */
  basePath?: string;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** Added before every chat-completion reply, faults included. Default 0. */
  latencyMs?: number;
  /** Seeds the fault-rate draws. Default 0. */
  seed?: number;
  /** Keep the request log (default true); a long-running server can turn it off. */
  recordRequests?: boolean;
  /** A gateway's quota: buckets, random 429s, budget headers, Retry-After (quota.ts). */
  quota?: QuotaOptions;
  /** The batch API's completion delay, failed lines, expired batches and limits (batch.ts). */
  batch?: BatchOptions;
}

export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  /** Lower-cased names; credential headers hold a `sha256:` fingerprint instead of their value. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON (undefined when empty). */
  body: unknown;
  /** When the request arrived (Date.now()), so tests can measure request rates. */
  receivedAt: number;
}

export interface EndpointStats {
  /** Synchronous chat-completion requests only: a batch's lines count in `batch`. */
  requests: number;
  answered: number;
  refused: number;
  readonly batch: BatchStats;
}

export interface ScriptedEndpoint {
  /** Base URL including the base path, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  requests: readonly RecordedRequest[];
  /** Chat-completion requests received, answered with a completion, and refused with a 429; the batch API's counts. */
  readonly stats: EndpointStats;
  close(): Promise<void>;
}

/** The model `GET /models` lists when the script names none (any model is then accepted). */
export const DEFAULT_MODEL = 'hermes-testkit-scripted';

function normaliseBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function keyMatches(header: string | undefined, apiKey: string): boolean {
  if (header === undefined) return false;
  // Comparing digests keeps the comparison constant-time whatever the lengths.
  return timingSafeEqual(Buffer.from(sha256Hex(header), 'hex'), Buffer.from(sha256Hex(`Bearer ${apiKey}`), 'hex'));
}

/** The stats as JSON: `submissions` as an object of custom_id to count. */
export function statsSnapshot(stats: EndpointStats): Omit<EndpointStats, 'batch'> & {
  batch: Omit<BatchStats, 'submissions'> & { submissions: Record<string, number> };
} {
  const { submissions, ...batch } = stats.batch;
  return { requests: stats.requests, answered: stats.answered, refused: stats.refused, batch: { ...batch, submissions: Object.fromEntries(submissions) } };
}

function notFound(response: ServerResponse, route: string): void {
  sendError(response, 404, { message: `Not found: ${route}`, type: 'invalid_request_error', code: 'not_found' });
}

/** drop: the connection dies mid-body; truncated: a complete response whose body is cut in half. */
function sendCompletion(
  response: ServerResponse,
  completion: Completion,
  request: ChatRequest,
  fault: 'drop' | 'truncated' | undefined,
  extraHeaders: HeaderMap,
): void {
  const drop = fault === 'drop';
  if (!request.stream) {
    const whole = JSON.stringify(completion);
    const text = fault === 'truncated' ? whole.slice(0, Math.floor(whole.length / 2)) : whole;
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extraHeaders });
    if (drop) response.write(text.slice(0, Math.floor(text.length / 2)), () => response.socket?.destroy());
    else response.end(text);
    return;
  }
  const frames = completionChunks(completion, request.stream_options?.include_usage === true).map(sseFrame);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...extraHeaders });
  if (drop) {
    response.write(frames.slice(0, 2).join(''), () => response.socket?.destroy());
    return;
  }
  if (fault === 'truncated') {
    response.end(frames.slice(0, 2).join(''));
    return;
  }
  for (const frame of frames) response.write(frame);
  response.end(sseFrame('[DONE]'));
}

export async function startScriptedEndpoint(options: ScriptedEndpointOptions = {}): Promise<ScriptedEndpoint> {
  const script = parseScript(options.script ?? {}, 'options.script');
  const basePath = normaliseBasePath(options.basePath ?? '/v1');
  const seed = options.seed ?? 0;
  const answerer = new ChatAnswerer(script, { ...options, latencyMs: options.latencyMs ?? 0, seed });
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();
  const delays = new Delays(closing.signal);
  let chatRequests = 0;
  const batches = new BatchApi({ answerer, nextNth: () => ++chatRequests, wait: (ms) => delays.wait(ms), seed }, options.batch);
  const stats: EndpointStats = { requests: 0, answered: 0, refused: 0, batch: batches.stats };
  const quota = options.quota !== undefined && Quota.wanted(options.quota) ? new Quota({ seed: options.seed, ...options.quota }) : undefined;

  const unauthorized = (incoming: IncomingMessage, response: ServerResponse): boolean => {
    if (options.apiKey === undefined || keyMatches(incoming.headers.authorization, options.apiKey)) return false;
    const message =
      incoming.headers.authorization === undefined ? 'No API key provided: send it as "Authorization: Bearer <key>".' : 'Incorrect API key provided.';
    sendError(response, 401, { message, type: 'invalid_request_error', code: 'invalid_api_key' });
    return true;
  };

  const chat = async (incoming: IncomingMessage, response: ServerResponse, raw: string): Promise<void> => {
    const nth = ++chatRequests;
    stats.requests += 1;
    if (unauthorized(incoming, response)) return;
    const answer = answerer.answer(raw, nth, quota);
    if (answer.delayMs > 0) await delays.wait(answer.delayMs);
    // A timeout accepts the request and never answers; close() ends the connection.
    if (answer.kind === 'silence') return;
    if (answer.kind === 'response') {
      if (answer.refused) stats.refused += 1;
      sendFaultAnswer(response, answer);
      return;
    }
    stats.answered += 1;
    sendCompletion(response, answer.completion, answer.request, answer.cut, answer.headers);
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const receivedAt = Date.now();
    const bytes = await readBody(incoming);
    const raw = bytes.toString('utf8');
    const path = incoming.url ?? '/';
    if (options.recordRequests !== false) {
      const parsed = parseJson(raw);
      requests.push({
        method: incoming.method ?? 'GET',
        path,
        headers: redactHeaders(incoming.headers),
        body: raw === '' ? undefined : parsed.ok ? parsed.value : raw,
        receivedAt,
      });
    }
    const url = new URL(path, 'http://endpoint');
    const route = `${incoming.method} ${url.pathname}`;
    const inBase = url.pathname.startsWith(`${basePath}/`);
    if (route === `POST ${basePath}/chat/completions`) {
      await chat(incoming, response, raw);
    } else if (route === `GET ${basePath}/models`) {
      if (unauthorized(incoming, response)) return;
      const data = (script.models ?? [DEFAULT_MODEL]).map((id) => ({ id, object: 'model', created: 0, owned_by: 'hermes-testkit' }));
      sendJson(response, 200, { object: 'list', data });
    } else if (route === `GET ${basePath}/testkit/stats`) {
      if (unauthorized(incoming, response)) return;
      sendJson(response, 200, statsSnapshot(stats));
    } else if (inBase && /^\/(files|batches)(\/|$)/.test(url.pathname.slice(basePath.length))) {
      if (unauthorized(incoming, response)) return;
      const below = `${incoming.method} ${url.pathname.slice(basePath.length)}`;
      if (!(await batches.handle(below, url.searchParams, incoming.headers['content-type'], bytes, response))) notFound(response, route);
    } else {
      notFound(response, route);
    }
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      if (closing.signal.aborted) return;
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendError(response, 500, { message: `hermes-testkit failed: ${(error as Error).message}`, type: 'server_error', code: null });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${basePath}`,
    port,
    requests,
    stats,
    close: async (): Promise<void> => {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * The delayed replies: a timer each, all cut short by close() through one abort listener. (A
 * listener per reply, as a sleep with the signal adds, costs time in proportion to the replies
 * waiting, since EventTarget looks through its listeners on every add: hundreds wait at gateway scale.)
 */
class Delays {
  private readonly waiting = new Set<(reason: unknown) => void>();

  public constructor(private readonly closing: AbortSignal) {
    closing.addEventListener('abort', () => {
      for (const cancel of [...this.waiting]) cancel(closing.reason);
    });
  }

  /** Resolves after ms; rejects with the abort reason when the server closes first. */
  public wait(ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closing.aborted) return reject(this.closing.reason);
      const cancel = (reason: unknown): void => {
        clearTimeout(timer);
        this.waiting.delete(cancel);
        reject(reason);
      };
      const timer = setTimeout(() => {
        this.waiting.delete(cancel);
        resolve();
      }, ms);
      this.waiting.add(cancel);
    });
  }
}
