// The chat client against real HTTP servers on 127.0.0.1: a Retry-After far beyond the cap is cut to
// the cap, the client's own retries are bounded, nothing comes from process.env behind the endpoint's
// back, and a proxy variable is honoured.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APIError, RateLimitError } from 'openai';
import { createChatClient, embeddedErrorStatus, REPLY_FAULT_HEADER, resolveEndpoint, retryAfterMs, type Endpoint } from '@hermes-datagen/core/endpoint';
import { cappedRetryHeaders, surfaceReplyFaults } from '@hermes-datagen/core/internal/chatClient.js';
import { nodeHttpFetch, type FetchLike } from '@hermes-datagen/core/internal/httpFetch.js';

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
});

describe('cappedRetryHeaders', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('leaves waits within the cap, and responses without them, alone', () => {
    expect(cappedRetryHeaders(new Headers({ 'retry-after': '2', 'retry-after-ms': '1500' }), 30_000, now)).toBeUndefined();
    expect(cappedRetryHeaders(new Headers({ 'content-type': 'application/json' }), 30_000, now)).toBeUndefined();
  });

  it('brings each header down to the cap, keeping the others', () => {
    const capped = cappedRetryHeaders(new Headers({ 'retry-after': '120', 'retry-after-ms': '90000', 'x-request-id': 'r1' }), 30_000, now);
    expect(capped?.get('retry-after')).toBe('30');
    expect(capped?.get('retry-after-ms')).toBe('30000');
    expect(capped?.get('x-request-id')).toBe('r1');
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

describe('surfaceReplyFaults over nodeHttpFetch', () => {
  /** The wrapped fetch, and the last response the inner fetch gave it. */
  function wrapped(): { fetch: FetchLike; inner: () => Response | undefined } {
    const base = nodeHttpFetch();
    let last: Response | undefined;
    return {
      fetch: surfaceReplyFaults(async (input, init) => (last = await base(input, init))),
      inner: () => last,
    };
  }

  it('passes a completion on as the very response that came, its body unread (no second response is built)', async () => {
    const { url } = await bodiesServer([JSON.stringify(COMPLETION)]);
    const { fetch, inner } = wrapped();
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' });
    expect(response).toBe(inner());
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual(COMPLETION);
  });

  it('reads the held bytes as Response.text() would: a leading byte order mark is no fault', async () => {
    const { url } = await bodiesServer([`\ufeff${JSON.stringify(COMPLETION)}`]);
    const { fetch } = wrapped();
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers.get(REPLY_FAULT_HEADER)).toBeNull();
  });

  it('still turns a body cut short into a 502 from the held bytes', async () => {
    const { url } = await bodiesServer([JSON.stringify(COMPLETION).slice(0, 40)]);
    const { fetch, inner } = wrapped();
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' });
    expect(response).not.toBe(inner());
    expect(response.status).toBe(502);
    expect(response.headers.get(REPLY_FAULT_HEADER)).toBe('malformed');
  });
});
