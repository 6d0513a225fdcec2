// The chat client against real HTTP servers on 127.0.0.1: a Retry-After far beyond the cap is cut to
// the cap, the client's own retries are bounded, errors are openai's classes, a per-attempt timeout and
// an abort end a request, nothing comes from process.env behind the endpoint's back, and a proxy
// variable is honoured.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, InternalServerError, NotFoundError, RateLimitError } from 'openai';
import { createChatClient, embeddedErrorStatus, REPLY_FAULT_HEADER, resolveEndpoint, type Endpoint } from '@hermes-datagen/core/endpoint';
import { retryAfterMs, retryWaitMs } from '@hermes-datagen/core/internal/chatClient.js';

const KEY = 'sk-hermes-FAKE-client-5555555555';

interface Seen {
  path: string;
  authorization: string | undefined;
  organization: string | undefined;
  at: number;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((done) => {
          s.closeAllConnections();
          s.close(() => done());
        }),
    ),
  );
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

const COMPLETION = {
  id: 'c1',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

/** Answers the first `throttled` requests with 429 and these headers, then a completion. */
async function throttlingServer(throttled: number, headers: Record<string, string>): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      seen.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        organization: req.headers['openai-organization'] as string | undefined,
        at: Date.now(),
      });
      if (seen.length <= throttled) {
        res.writeHead(429, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(COMPLETION));
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/v1`, seen };
}

function endpointAt(baseUrl: string, env: Record<string, string> = {}): Promise<Endpoint> {
  return resolveEndpoint({ baseUrl, model: 'm' }, { env: { HERMES_API_KEY: KEY, ...env }, cwd: process.cwd() });
}

function ping(endpoint: Endpoint, options: Parameters<typeof createChatClient>[1]): Promise<unknown> {
  return createChatClient(endpoint, options).chat.completions.create({ model: endpoint.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
}

/**
 * The client's waits between attempts, on fake timers: each setTimeout other than the per-attempt
 * timeout is a retry wait. The waits are what is asserted, so no wall-clock bound can be missed on a
 * busy machine; the test releases each wait by advancing the fake clock.
 */
function recordRetryWaits(attemptTimeoutMs: number): { waits: number[]; nextWait(): Promise<number> } {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const fake = globalThis.setTimeout;
  const waits: number[] = [];
  const waiting: ((ms: number) => void)[] = [];
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
    if (ms !== attemptTimeoutMs) {
      waits.push(ms ?? 0);
      waiting.shift()?.(ms ?? 0);
    }
    return fake(callback, ms);
  }) as typeof setTimeout);
  return { waits, nextWait: () => new Promise((resolve) => waiting.push(resolve)) };
}

describe('createChatClient', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('waits the cap, not the hour a retry-after: 3600 asks for', async () => {
    const { url, seen } = await throttlingServer(1, { 'retry-after': '3600' });
    const endpoint = await endpointAt(url);
    const { waits, nextWait } = recordRetryWaits(10_000);
    const wait = nextWait();
    const completion = ping(endpoint, { retryAfterCapMs: 1000, maxRetries: 2, timeoutMs: 10_000 });
    expect(await wait).toBe(1000);
    expect(seen).toHaveLength(1);
    // Just short of the cap nothing is sent; at the cap the retry goes out.
    await vi.advanceTimersByTimeAsync(999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(((await completion) as typeof COMPLETION).choices[0]!.message.content).toBe('pong');
    expect(seen).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('caps retry-after-ms and an HTTP-date too', async () => {
    const future = new Date(Date.now() + 3_600_000).toUTCString();
    const { url, seen } = await throttlingServer(2, { 'retry-after-ms': '600000', 'retry-after': future });
    const endpoint = await endpointAt(url);
    const { waits, nextWait } = recordRetryWaits(10_000);
    let wait = nextWait();
    const completion = ping(endpoint, { retryAfterCapMs: 300, maxRetries: 2, timeoutMs: 10_000 });
    expect(await wait).toBe(300);
    wait = nextWait();
    await vi.advanceTimersByTimeAsync(300);
    expect(await wait).toBe(300);
    await vi.advanceTimersByTimeAsync(300);
    await completion;
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([300, 300]);
  });

  it('sends the key as a Bearer token to base URL + /chat/completions, and nothing from OPENAI_ORG_ID', async () => {
    const { url, seen } = await throttlingServer(0, {});
    const previous = process.env['OPENAI_ORG_ID'];
    process.env['OPENAI_ORG_ID'] = 'org-from-the-shell';
    try {
      await ping(await endpointAt(url), {});
    } finally {
      if (previous === undefined) delete process.env['OPENAI_ORG_ID'];
      else process.env['OPENAI_ORG_ID'] = previous;
    }
    expect(seen).toEqual([expect.objectContaining({ path: '/v1/chat/completions', authorization: `Bearer ${KEY}`, organization: undefined })]);
  });

  it('maxRetries: 0 makes one attempt and surfaces the 429', async () => {
    const { url, seen } = await throttlingServer(5, { 'retry-after': '1' });
    const error = await ping(await endpointAt(url), { maxRetries: 0 }).catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('goes through the proxy that http_proxy names', async () => {
    const { url, seen } = await throttlingServer(0, {});
    const tunnels: string[] = [];
    const proxy = createServer();
    proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const proxyPort = await listen(proxy);
    const endpoint = await endpointAt(url, { http_proxy: `http://127.0.0.1:${proxyPort}` });
    expect(endpoint.proxy?.name).toBe('http_proxy');
    await ping(endpoint, { maxRetries: 0 });
    expect(tunnels).toEqual([new URL(url).host]);
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt through the proxy that never answers, as a connection timeout', async () => {
    const { url, seen } = await throttlingServer(0, {});
    const held: Socket[] = [];
    const proxy = createServer();
    // Takes the tunnel request and says nothing, the way a stalled proxy does.
    proxy.on('connect', (_req: IncomingMessage, client: Socket) => held.push(client));
    const proxyPort = await listen(proxy);
    const endpoint = await endpointAt(url, { http_proxy: `http://127.0.0.1:${proxyPort}` });
    const error = await ping(endpoint, { maxRetries: 0, timeoutMs: 300 }).catch((e: unknown) => e);
    for (const socket of held) socket.destroy();
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(held).toHaveLength(1);
    expect(seen).toHaveLength(0);
  });
});

describe('retryWaitMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const limited = (headers: Record<string, string>): RateLimitError => new RateLimitError(429, undefined, 'slow down', new Headers(headers));

  it("waits what the server asks, up to the cap; without a Retry-After, openai's jittered backoff", () => {
    expect(retryWaitMs(limited({ 'retry-after': '2' }), 0, 30_000)).toBe(2000);
    expect(retryWaitMs(limited({ 'retry-after-ms': '1500', 'retry-after': '9' }), 0, 30_000)).toBe(1500);
    expect(retryWaitMs(limited({ 'retry-after': '120' }), 0, 30_000)).toBe(30_000);
    expect(retryWaitMs(limited({ 'retry-after-ms': '90000' }), 0, 30_000)).toBe(30_000);
    expect([0, 1, 2, 5].map((attempt) => retryWaitMs(limited({}), attempt, 30_000, () => 0))).toEqual([500, 1000, 2000, 8000]);
    expect(retryWaitMs(new APIConnectionError({ message: undefined }), 1, 30_000, () => 1)).toBe(750);
  });

  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('3600', now)).toBe(3_600_000);
    expect(retryAfterMs('1.5', now)).toBe(1500);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('soon', now)).toBeNaN();
  });
});

/** Answers every request with status 200 and the bodies in turn (the last one repeats). */
async function bodiesServer(bodies: string[]): Promise<{ url: string; seen: number[] }> {
  const seen: number[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      seen.push(Date.now());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(bodies[Math.min(seen.length, bodies.length) - 1]);
    });
  });
  return { url: `http://127.0.0.1:${await listen(server)}/v1`, seen };
}

describe('createChatClient, a 200 that is no completion', () => {
  const whole = JSON.stringify(COMPLETION);

  it('retries a body cut short, and gets the completion', async () => {
    const { url, seen } = await bodiesServer([whole.slice(0, 40), whole]);
    const completion = await ping(await endpointAt(url), { maxRetries: 2 });
    expect((completion as typeof COMPLETION).choices[0]!.message.content).toBe('pong');
    expect(seen).toHaveLength(2);
  });

  it('gives up after the bounded retries with a 502 that says what came', async () => {
    const { url, seen } = await bodiesServer([whole.slice(0, 40)]);
    const error = await ping(await endpointAt(url), { maxRetries: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(502);
    expect((error as APIError).headers?.get(REPLY_FAULT_HEADER)).toBe('malformed');
    expect((error as APIError).message).toMatch(/not valid JSON .*40 characters/);
    expect(seen).toHaveLength(2);
  });

  it('treats {"error": {"code": 429}} as a rate limit: retried, then a RateLimitError', async () => {
    const { url, seen } = await bodiesServer([JSON.stringify({ error: { code: 429, message: 'Provider returned error' } })]);
    const error = await ping(await endpointAt(url), { maxRetries: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).message).toContain('Provider returned error');
    expect(seen).toHaveLength(2);
  });

  it('does not retry a 401 inside a 200: the status decides, as for any response', async () => {
    const { url, seen } = await bodiesServer([JSON.stringify({ error: { code: 401, message: 'No auth credentials found' } })]);
    const error = await ping(await endpointAt(url), { maxRetries: 2 }).catch((e: unknown) => e);
    expect((error as APIError).status).toBe(401);
    expect(seen).toHaveLength(1);
  });

  it('reads the status an error body stands for', () => {
    expect(embeddedErrorStatus({ error: { code: 429 } })).toBe(429);
    expect(embeddedErrorStatus({ error: { code: '503', message: 'x' } })).toBe(503);
    expect(embeddedErrorStatus({ error: { code: 'rate_limit_exceeded', status: 429 } })).toBe(429);
    expect(embeddedErrorStatus({ error: 'something broke' })).toBe(502);
    expect(embeddedErrorStatus({ choices: [], error: { code: 429 } })).toBeUndefined();
    expect(embeddedErrorStatus({ id: 'x' })).toBeUndefined();
  });

  it('passes an HTML page through as text (no retry mends a base URL that points at a web page)', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><html></html>'));
    });
    const url = `http://127.0.0.1:${await listen(server)}/v1`;
    expect(await ping(await endpointAt(url), { maxRetries: 2 })).toBe('<!DOCTYPE html><html></html>');
  });
});

describe('createChatClient, what comes back', () => {
  /** Answers each request as `answer` says, counting them; keeps the last request's headers. */
  async function server(answer: (n: number, res: ServerResponse) => void): Promise<{ url: string; seen: IncomingMessage['headers'][] }> {
    const seen: IncomingMessage['headers'][] = [];
    const port = await listen(
      createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          seen.push(req.headers);
          answer(seen.length, res);
        });
      }),
    );
    return { url: `http://127.0.0.1:${port}/v1`, seen };
  }

  it("gives the completion with its status and headers, and sends the request's own headers beside the client's", async () => {
    const { url, seen } = await server((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-remaining-requests': '7' }).end(JSON.stringify(COMPLETION)),
    );
    const endpoint = await endpointAt(url);
    const reply = await createChatClient(endpoint)
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] }, { headers: { 'X-Hermes-Trace': 'run=r' } })
      .withResponse();
    expect(reply.data).toEqual(COMPLETION);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('X-RateLimit-Remaining-Requests')).toBe('7');
    expect(reply.headers.get('retry-after')).toBeNull();
    expect(seen[0]).toMatchObject({ 'x-hermes-trace': 'run=r', authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
  });

  it('reads a reply as Response.text() would: a leading byte order mark is no fault', async () => {
    const { url } = await server((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`\ufeff${JSON.stringify(COMPLETION)}`));
    expect(await ping(await endpointAt(url), { maxRetries: 0 })).toEqual(COMPLETION);
  });

  it('makes an error status the APIError subclass openai makes, with its body and headers, not retried when the server says so', async () => {
    const { url, seen } = await server((n, res) =>
      n === 1
        ? res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no such model', code: 'model_not_found' } }))
        : res.writeHead(503, { 'x-should-retry': 'false' }).end('upstream down'),
    );
    const endpoint = await endpointAt(url);
    const missing = await ping(endpoint, { maxRetries: 2 }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).error).toMatchObject({ code: 'model_not_found' });
    expect((missing as NotFoundError).message).toBe('404 no such model');
    const down = await ping(endpoint, { maxRetries: 2 }).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(InternalServerError);
    expect((down as InternalServerError).message).toBe('503 upstream down');
    expect((down as InternalServerError).headers?.get('x-should-retry')).toBe('false');
    expect(seen).toHaveLength(2);
  });

  it('ends an attempt that gets no answer in time as a timeout, and retries it', async () => {
    const { url, seen } = await server((n, res) => {
      if (n > 1) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(COMPLETION));
    });
    const endpoint = await endpointAt(url);
    const late = await ping(endpoint, { maxRetries: 0, timeoutMs: 50 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(APIConnectionTimeoutError);
    expect(await ping(endpoint, { maxRetries: 1, timeoutMs: 5000 })).toEqual(COMPLETION);
    expect(seen).toHaveLength(2);
  });

  it("ends a request when the caller's signal aborts, during the call or the wait before a retry", async () => {
    const { url } = await server((n, res) => {
      if (n > 1) res.writeHead(429, { 'retry-after': '60' }).end();
    });
    const endpoint = await endpointAt(url);
    const client = createChatClient(endpoint, { maxRetries: 2 });
    const ask = (signal: AbortSignal): Promise<unknown> =>
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] }, { signal }).catch((e: unknown) => e);
    const hanging = new AbortController();
    const first = ask(hanging.signal);
    setTimeout(() => hanging.abort(), 20);
    expect(await first).toBeInstanceOf(APIUserAbortError);
    const waiting = new AbortController();
    const second = ask(waiting.signal);
    setTimeout(() => waiting.abort(), 50);
    expect(await second).toBeInstanceOf(APIUserAbortError);
    expect(await ask(AbortSignal.abort())).toBeInstanceOf(APIUserAbortError);
  });

  it('makes a refused connection an APIConnectionError whose cause has the code', async () => {
    const port = await listen(createServer());
    const url = `http://127.0.0.1:${port}/v1`;
    await new Promise<void>((done) => servers.pop()?.close(() => done()));
    const refused = await ping(await endpointAt(url), { maxRetries: 0 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect((refused as APIConnectionError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
