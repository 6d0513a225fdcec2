// nodeHttpFetch against real servers on 127.0.0.1: as a fetch, and as the OpenAI client's fetch.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { APIConnectionError, APIUserAbortError, RateLimitError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '@hermes-datagen/core/endpoint';
import { startScriptedEndpoint, type ScriptedEndpoint } from '@hermes-datagen/testkit';

let server: Server | undefined;
let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await endpoint?.close();
  endpoint = undefined;
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
      res.end(JSON.stringify({ method: req.method, url: req.url, header: req.headers['x-test'], length: req.headers['content-length'], body: Buffer.concat(chunks).toString('utf8') }));
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

  it('works as the OpenAI client\'s fetch: completions, retried 429s, aborts and refused connections', async () => {
    endpoint = await startScriptedEndpoint({
      script: { sequences: [{ match: { regex: '.' }, replies: [{ content: 'hi there' }] }], faults: [{ kind: 'rate_limit', when: { nth: [1, 3, 4] }, retry_after_s: 0 }] },
    });
    const client = new OpenAI({ baseURL: endpoint.url, apiKey: 'sk-x', fetch: nodeHttpFetch(), maxRetries: 1 });
    const ask = (signal?: AbortSignal): Promise<OpenAI.ChatCompletion> =>
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hello' }] }, signal ? { signal } : {});
    expect((await ask()).choices[0]?.message.content).toBe('hi there');
    await expect(ask()).rejects.toBeInstanceOf(RateLimitError);
    await expect(ask(AbortSignal.abort())).rejects.toBeInstanceOf(APIUserAbortError);
    const url = endpoint.url;
    await endpoint.close();
    endpoint = undefined;
    const refused = await new OpenAI({ baseURL: url, apiKey: 'sk-x', fetch: nodeHttpFetch(), maxRetries: 0 })
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect((refused as APIConnectionError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
