// nodeHttpFetch against real servers on 127.0.0.1: as a fetch, and as the OpenAI client's fetch.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { APIConnectionError, APIUserAbortError, RateLimitError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '@hermes-datagen/core/internal/httpFetch.js';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that echoes what it received, and answers some paths specially. */
async function echoServer(): Promise<string> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/empty') {
        res.writeHead(204).end();
        return;
      }
      if (req.url === '/hang') return;
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(201, 'Made', { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          header: req.headers['x-test'],
          length: req.headers['content-length'],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('nodeHttpFetch', () => {
  it('sends the method, headers and body, and returns status, headers and body', async () => {
    const base = await echoServer();
    const response = await nodeHttpFetch()(`${base}/v1/x?q=1`, { method: 'POST', headers: { 'x-test': 'yes' }, body: 'héllo' });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await response.json()).toEqual({ method: 'POST', url: '/v1/x?q=1', header: 'yes', length: String(Buffer.byteLength('héllo')), body: 'héllo' });
  });

  it('gives a response without a body for 204', async () => {
    const base = await echoServer();
    const response = await nodeHttpFetch()(`${base}/empty`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('rejects with an AbortError when the signal aborts mid-request', async () => {
    const base = await echoServer();
    const controller = new AbortController();
    const pending = nodeHttpFetch()(`${base}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects a request still waiting for a pooled connection when its signal aborts', async () => {
    const base = await echoServer();
    const fetch = nodeHttpFetch({ maxConnections: 1 });
    const first = new AbortController();
    const holding = fetch(`${base}/hang`, { signal: first.signal });
    holding.catch(() => undefined);
    const queued = new AbortController();
    const waiting = fetch(`${base}/hang`, { signal: queued.signal });
    setTimeout(() => queued.abort(), 20);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    first.abort();
    await expect(holding).rejects.toMatchObject({ name: 'AbortError' });
  });

  it("works as the OpenAI client's fetch: completions, retried 429s, aborts and refused connections", async () => {
    const endpoint = await scriptedEndpoint({
      script: {
        sequences: [{ match: { regex: '.' }, replies: [{ content: 'hi there' }] }],
        faults: [{ kind: 'rate_limit', when: { nth: [1, 3, 4] }, retry_after_s: 0 }],
      },
    });
    const client = new OpenAI({ baseURL: endpoint.url, apiKey: 'sk-x', fetch: nodeHttpFetch(), maxRetries: 1 });
    const ask = (signal?: AbortSignal): Promise<OpenAI.ChatCompletion> =>
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hello' }] }, signal ? { signal } : {});
    expect((await ask()).choices[0]?.message.content).toBe('hi there');
    await expect(ask()).rejects.toBeInstanceOf(RateLimitError);
    await expect(ask(AbortSignal.abort())).rejects.toBeInstanceOf(APIUserAbortError);
    const url = endpoint.url;
    await endpoint.close();
    const refused = await new OpenAI({ baseURL: url, apiKey: 'sk-x', fetch: nodeHttpFetch(), maxRetries: 0 }).chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect((refused as APIConnectionError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('nodeHttpFetch connection pool', () => {
  it('holds at most maxConnections connections to a host; more requests wait for a free one', async () => {
    const connections = new Set<unknown>();
    let open = 0;
    let mostOpen = 0;
    server = createServer((req, res) => {
      connections.add(req.socket);
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open -= 1;
        res.end('ok');
      }, 20);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const fetchFn = nodeHttpFetch({ maxConnections: 4 });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const bodies = await Promise.all(Array.from({ length: 20 }, () => fetchFn(`${base}/`).then((r) => r.text())));
    expect(bodies).toEqual(Array.from({ length: 20 }, () => 'ok'));
    expect(connections.size).toBe(4);
    expect(mostOpen).toBe(4);
  });

  /**
   * A server in another process that closes a connection idle for 300 ms and announces no keep-alive
   * timeout (as uvicorn does), and a client whose event loop is blocked for longer than that right
   * after a request: the next request must not go out on the connection the server has closed.
   */
  async function requestAfterStall(idleSocketMs: number): Promise<string> {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `
      const server = require('node:http').createServer((req, res) => {
        req.socket.setTimeout(300, () => req.socket.destroy());
        res.end('ok');
      });
      server.keepAliveTimeout = 0;
      server.listen(0, '127.0.0.1', () => console.log(server.address().port));
    `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
      const fetchFn = nodeHttpFetch({ idleSocketMs });
      expect(await (await fetchFn(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
      // Let the agent take the socket back as free before the stall.
      await new Promise((resolve) => setImmediate(resolve));
      const until = Date.now() + 700;
      while (Date.now() < until) {
        // a stalled event loop: the idle timer cannot run, the server's FIN is not read
      }
      return await (await fetchFn(`http://127.0.0.1:${port}/`)).text();
    } finally {
      child.kill();
    }
  }

  it('never reuses a connection idle past idleSocketMs, even when a stalled event loop ran no timer', async () => {
    expect(await requestAfterStall(100)).toBe('ok');
  });

  it('(the same stall with a long idle limit reuses the closed connection and fails: what the limit prevents)', async () => {
    await expect(requestAfterStall(60_000)).rejects.toThrow(/ECONNRESET|socket hang up/);
  });
});
