// doctor --batch-api: against hermes-testkit, which serves the batch API, GET /batches and GET /files
// each answer a list and the check passes, naming both routes; behind a gateway (a real HTTP proxy)
// that forwards chat completions only, the chat probe passes and the batch check fails (exit 1),
// saying which route answered what. Neither check creates a file or a batch.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/generate/internal/main.js';
import { runInProcess } from '../util/cli.js';
import { TEST_MODEL } from '../util/generate.js';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { TEST_API_KEY } from '../util/secrets.js';

let gateway: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (gateway === undefined ? resolve(undefined) : gateway.close(resolve)));
  gateway = undefined;
});

interface Report {
  readonly checks: { id: string; status: string; message: string; fix?: string }[];
}

const doctor = async (url: string, args: readonly string[]) => {
  const result = await runInProcess(spec, ['doctor', '--json', '--base-url', url, '--model', TEST_MODEL, ...args], { env: { HERMES_API_KEY: TEST_API_KEY } });
  return { code: result.code, checks: (JSON.parse(result.stdout) as Report).checks };
};

/** A gateway in front of `target` that forwards POST .../chat/completions and answers 404 to anything else. */
async function chatOnlyGateway(target: string): Promise<string> {
  const upstream = new URL(target);
  gateway = createServer((incoming, outgoing) => {
    if (incoming.method !== 'POST' || !incoming.url?.endsWith('/chat/completions')) {
      outgoing.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no route', type: 'not_found' } }));
      return;
    }
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: `${upstream.pathname}/chat/completions`, method: 'POST', headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => gateway!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/v1`;
}

describe('doctor --batch-api', () => {
  it('passes where the batch routes answer, naming each, and creates nothing', async () => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY });
    const { code, checks } = await doctor(endpoint.url, ['--batch-api']);
    expect(code).toBe(0);
    const check = checks.find((c) => c.id === 'batch-api');
    expect(check?.status).toBe('ok');
    expect(check?.message).toBe('the batch API answers (GET /batches: 200 OK, a list; GET /files: 200 OK, a list)');
    expect(endpoint.stats.batch.filesUploaded + endpoint.stats.batch.batchesCreated).toBe(0);
    // Without the flag there is no batch check.
    expect((await doctor(endpoint.url, [])).checks.some((c) => c.id.includes('batch'))).toBe(false);
  });

  it('fails (exit 1) behind a gateway that forwards chat completions only, saying which route answered what', async () => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY });
    const url = await chatOnlyGateway(endpoint.url);
    const { code, checks } = await doctor(url, ['--batch-api']);
    expect(code).toBe(1);
    // The chat probe went through the gateway and passed: only the batch routes are missing.
    expect(checks.find((c) => c.id === 'chat-ok')?.status).toBe('ok');
    const failed = checks.find((c) => c.status === 'fail');
    expect(failed?.id).toBe('no-batch-api');
    expect(failed?.message).toContain('GET /batches: 404 Not Found; GET /files: 404 Not Found');
    expect(failed?.fix).toMatch(/\/v1\/files and \/v1\/batches/);
  });
});
