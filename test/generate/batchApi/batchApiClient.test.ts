// The batch API client on the wire, against a real HTTP server that answers each request from a
// queue: what it retries (a 503 after its Retry-After, a dropped connection), what it never retries
// (a billing 429, a refused key), and the APIError each refusal becomes (doctor's names come from it).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '@hermes-datagen/core';
import { APIError } from 'openai/core/error';
import { BatchApi } from '@hermes-datagen/generate/internal/batchApi/batchApiClient.js';

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

const KEY = 'sk-batch-client-test-key';
const batch = { id: 'batch_1', status: 'in_progress', input_file_id: 'file_1' };

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

/** Serves the answers in turn; each request's method, path and authorization are kept. */
async function serve(answers: Answer[]): Promise<{ api: BatchApi; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url} ${request.headers.authorization === `Bearer ${KEY}` ? 'keyed' : 'unkeyed'}`);
    const answer = answers.shift();
    if (answer === undefined) json(500, { error: { message: 'no answer left' } })(request, response);
    else answer(request, response);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { api: new BatchApi({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: new ApiKey(KEY), headers: [], proxy: undefined }), seen };
}

async function refusal(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

describe('BatchApi on the wire', () => {
  it('retries a 503 after its Retry-After and a dropped connection, with the key on every attempt', async () => {
    const { api, seen } = await serve([
      json(503, { error: { message: 'overloaded' } }, { 'retry-after': '0' }),
      (request) => request.socket.destroy(),
      json(200, batch),
    ]);
    expect(await api.retrieveBatch('batch_1')).toEqual(batch);
    expect(seen).toEqual(Array(3).fill('GET /v1/batches/batch_1 keyed'));
  });

  it('never retries a billing 429 or a refused key: each is the APIError of its status, with its body', async () => {
    const billing = await serve([json(429, { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } })]);
    const quota = await refusal(billing.api.createBatch('file_1', {}));
    expect([quota.status, quota.code]).toEqual([429, 'insufficient_quota']);
    expect(billing.seen).toEqual(['POST /v1/batches keyed']);
    await new Promise((resolve) => server?.close(resolve));
    const refused = await serve([
      (_request, response) => {
        response.writeHead(401, { 'content-type': 'text/plain' });
        response.end('Unauthorized: no such key');
      },
    ]);
    const unauthorized = await refusal(refused.api.fileContent('file_9'));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.message).toContain('Unauthorized: no such key');
    expect(unauthorized.message).not.toContain(KEY);
    expect(refused.seen).toEqual(['GET /v1/files/file_9/content keyed']);
  });

  it("keeps a body whose error fields are at the top (vLLM's), as the chat client does", async () => {
    const { api } = await serve([json(400, { object: 'error', message: 'The model `x` does not exist.', type: 'NotFoundError', code: 404 })]);
    const error = await refusal(api.listBatches());
    expect(error.status).toBe(400);
    expect(error.message).toContain('The model `x` does not exist.');
  });

  it('names a 2xx that is no batch object as a malformed reply of its route', async () => {
    const { api } = await serve([json(200, { id: 7 }), json(200, { data: 'none' })]);
    const error = await refusal(api.retrieveBatch('batch_1'));
    expect(error.status).toBe(502);
    expect(error.message).toContain("the batch API's batches/{id} answered with no batch object");
    expect((await refusal(api.listBatches())).message).toContain("the batch API's batches answered with no batch object");
  });
});
