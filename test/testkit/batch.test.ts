import OpenAI, { toFile } from 'openai';
import type { Batch } from 'openai/resources/batches';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '@hermes-datagen/core';
import { startScriptedEndpoint, type ScriptedEndpoint, type Script } from '@hermes-datagen/testkit';
import { spec } from '@hermes-datagen/testkit/internal/main.js';
import { runInProcess } from '../util/cli.js';
import { clientFor, scriptedEndpoint, offer, user, serveInProcess } from './endpoint.js';

const script: Script = {
  models: ['batch-model'],
  sequences: [
    {
      match: { contains: 'list the files' },
      replies: [{ content: null, tool_calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }, { content: 'Two files.' }],
    },
  ],
};

const TERMINAL = ['completed', 'failed', 'expired', 'cancelled'];

interface RequestLine {
  custom_id: string;
  method: string;
  url: string;
  body: Record<string, unknown>;
}

function requestLine(customId: string, prompt: string, model = 'batch-model'): RequestLine {
  return { custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [user(prompt)], tools: offer('terminal') } };
}

const jsonl = (lines: readonly unknown[]): string => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

async function upload(client: OpenAI, text: string): Promise<string> {
  return (await client.files.create({ file: await toFile(Buffer.from(text), 'input.jsonl'), purpose: 'batch' })).id;
}

async function submit(client: OpenAI, text: string): Promise<Batch> {
  return client.batches.create({ input_file_id: await upload(client, text), endpoint: '/v1/chat/completions', completion_window: '24h' });
}

/** Polls, as a client does, until the condition holds (the test's timeout bounds it). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Polls as a client does, until the batch is in a terminal state (the test's timeout bounds it). */
async function settled(client: OpenAI, id: string): Promise<Batch> {
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (TERMINAL.includes(batch.status)) return batch;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function linesOf(client: OpenAI, fileId: string | null | undefined): Promise<Record<string, unknown>[]> {
  if (fileId === null || fileId === undefined) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function byCustomId(lines: Record<string, unknown>[]): Map<unknown, Record<string, unknown>> {
  return new Map(lines.map((line) => [line['custom_id'], line]));
}

/** What the synchronous route answers for the same body, from a twin endpoint (so the batch endpoint's counters stay clean). */
async function synchronous(twin: ScriptedEndpoint, body: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(`${twin.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.json();
}

/** A completion's `created` is the second it was made: the rest must match. */
const timeless = (completion: unknown): unknown => ({ ...(completion as Record<string, unknown>), created: 0 });

describe('files', () => {
  it('uploads a batch file, gives its metadata and content, and deletes it', async () => {
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    const text = jsonl([requestLine('a', 'hello')]);
    const created = await client.files.create({ file: await toFile(Buffer.from(text), 'requests.jsonl'), purpose: 'batch' });
    expect(created).toMatchObject({ object: 'file', bytes: Buffer.byteLength(text), filename: 'requests.jsonl', purpose: 'batch' });
    expect(created.id).toMatch(/^file-/);
    expect(typeof created.created_at).toBe('number');
    expect(await client.files.retrieve(created.id)).toEqual(created);
    expect(await (await client.files.content(created.id)).text()).toBe(text);
    const listed: string[] = [];
    for await (const file of client.files.list()) listed.push(file.id);
    expect(listed).toEqual([created.id]);
    expect(await client.files.delete(created.id)).toEqual({ id: created.id, object: 'file', deleted: true });
    await expect(client.files.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    expect(target.stats.batch.filesUploaded).toBe(1);
  });

  it('answers an unknown file id with 404, and an upload without a file or with an unknown purpose with 400', async () => {
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    await expect(client.files.content('file-nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.files.create({ file: await toFile(Buffer.from('{}\n'), 'x.jsonl'), purpose: 'nonsense' as 'batch' })).rejects.toBeInstanceOf(
      OpenAI.BadRequestError,
    );
    const form = new FormData();
    form.set('purpose', 'batch');
    const response = await fetch(`${target.url}/files`, { method: 'POST', body: form });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'file', code: 'missing_required_parameter' } });
    expect(target.stats.batch.filesUploaded).toBe(0);
  });

  it('requires the API key on every route, as chat does', async () => {
    const target = await scriptedEndpoint({ apiKey: 'sk-right' });
    const wrong = clientFor(target, { apiKey: 'sk-wrong' });
    await expect(wrong.files.create({ file: await toFile(Buffer.from('{}\n'), 'x.jsonl'), purpose: 'batch' })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    await expect(wrong.batches.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(wrong.batches.retrieve('batch_x')).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const right = clientFor(target, { apiKey: 'sk-right' });
    const batch = await submit(right, jsonl([requestLine('a', 'hello')]));
    expect((await settled(right, batch.id)).status).toBe('completed');
  });
});

describe('a batch', () => {
  it('answers every line as the synchronous route answers the same body, with no request to /chat/completions', async () => {
    const target = await scriptedEndpoint({ script, seed: 3 });
    const twin = await scriptedEndpoint({ script, seed: 3 });
    const client = clientFor(target);
    const first = requestLine('rec-1:turn-0', 'Please list the files here');
    const other = requestLine('rec-2:turn-0', 'What is 2 + 2?');
    const created = await submit(client, jsonl([first, other]));
    // Counted by the time the client has the batch: a test may read them right after a run is killed.
    expect([...target.stats.batch.submissions.keys()]).toEqual(['rec-1:turn-0', 'rec-2:turn-0']);
    expect(created).toMatchObject({
      object: 'batch',
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      errors: null,
      metadata: null,
    });
    expect(created.id).toMatch(/^batch_/);
    expect(created.expires_at).toBe(created.created_at + 24 * 3600);
    const done = await settled(client, created.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    for (const field of ['in_progress_at', 'finalizing_at', 'completed_at'] as const) expect(typeof done[field]).toBe('number');
    expect(done.error_file_id).toBeNull();
    const output = byCustomId(await linesOf(client, done.output_file_id));
    expect([...output.keys()]).toEqual(['rec-1:turn-0', 'rec-2:turn-0']);
    for (const line of [first, other]) {
      const got = output.get(line.custom_id) as { id: string; response: { status_code: number; request_id: string; body: unknown }; error: null };
      expect(got.id).toMatch(/^batch_req_/);
      expect(got.error).toBeNull();
      expect(got.response.status_code).toBe(200);
      expect(got.response.request_id).toEqual(expect.any(String));
      expect(timeless(got.response.body)).toEqual(timeless(await synchronous(twin, line.body)));
    }
    expect(
      (output.get('rec-1:turn-0') as { response: { body: { choices: [{ message: { tool_calls: unknown[] } }] } } }).response.body.choices[0].message.tool_calls,
    ).toHaveLength(1);
    const usages = [...output.values()].map((line) => (line as { response: { body: { usage: OpenAI.CompletionUsage } } }).response.body.usage);
    expect(done.usage).toEqual({
      input_tokens: usages[0]!.prompt_tokens + usages[1]!.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usages[0]!.completion_tokens + usages[1]!.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usages[0]!.total_tokens + usages[1]!.total_tokens,
    });
    expect(done.usage?.total_tokens).toBeGreaterThan(0);
    expect(target.stats).toMatchObject({ requests: 0, answered: 0, refused: 0 });
    expect(target.stats.batch).toMatchObject({ filesUploaded: 1, batchesCreated: 1, requestsAnswered: 2 });
    expect([...target.stats.batch.submissions]).toEqual([
      ['rec-1:turn-0', 1],
      ['rec-2:turn-0', 1],
    ]);
    expect(target.requests.every((request) => !request.path.includes('/chat/completions'))).toBe(true);
  });

  it('writes the lines the rules answer with an HTTP error to the error file, with their status and body', async () => {
    const target = await scriptedEndpoint({ script });
    const client = clientFor(target);
    const done = await settled(client, (await submit(client, jsonl([requestLine('good', 'hello'), requestLine('bad', 'hello', 'unknown-model')]))).id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });
    expect((await linesOf(client, done.output_file_id)).map((line) => line['custom_id'])).toEqual(['good']);
    const [error] = await linesOf(client, done.error_file_id);
    expect(error).toMatchObject({
      custom_id: 'bad',
      error: null,
      response: { status_code: 404, body: { error: { code: 'model_not_found', type: 'invalid_request_error' } } },
    });
  });

  it('keeps its metadata and lists batches newest first, a page at a time', async () => {
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const file = await upload(client, jsonl([requestLine(`c${n}`, 'hello')]));
      const batch = await client.batches.create({
        input_file_id: file,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata: { n: String(n) },
      });
      expect(batch.metadata).toEqual({ n: String(n) });
      ids.push(batch.id);
    }
    const firstPage = await client.batches.list({ limit: 2 });
    expect(firstPage.data.map((batch) => batch.id)).toEqual([ids[2], ids[1]]);
    expect(firstPage.has_more).toBe(true);
    const listed: string[] = [];
    for await (const batch of client.batches.list({ limit: 2 })) listed.push(batch.id);
    expect(listed).toEqual([...ids].reverse());
    const raw = (await (await fetch(`${target.url}/batches?limit=2&after=${ids[1]}`)).json()) as Record<string, unknown>;
    expect(raw).toMatchObject({ object: 'list', first_id: ids[0], last_id: ids[0], has_more: false });
  });
});

describe('a batch that cannot run', () => {
  it.each([
    ['a line that is not JSON', `${JSON.stringify(requestLine('a', 'x'))}\n{"custom_id": "b", \n`, [{ code: 'invalid_json_line', line: 2 }]],
    ['a wrong url', jsonl([requestLine('a', 'x'), { ...requestLine('b', 'x'), url: '/v1/embeddings' }]), [{ code: 'invalid_url', line: 2, param: 'url' }]],
    ['a method other than POST', jsonl([{ ...requestLine('a', 'x'), method: 'GET' }]), [{ code: 'invalid_method', line: 1 }]],
    [
      'a line without a body',
      jsonl([{ custom_id: 'a', method: 'POST', url: '/v1/chat/completions' }]),
      [{ code: 'missing_required_parameter', param: 'body', line: 1 }],
    ],
    ['a duplicate custom_id', jsonl([requestLine('a', 'x'), requestLine('b', 'y'), requestLine('a', 'z')]), [{ code: 'duplicate_custom_id', line: 3 }]],
    ['an empty file', '', [{ code: 'empty_file', line: null }]],
  ])('fails with the error and its line: %s', async (_name, text, errors) => {
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    const done = await settled(client, (await submit(client, text)).id);
    expect(done.status).toBe('failed');
    expect(typeof done.failed_at).toBe('number');
    expect(done.errors?.object).toBe('list');
    expect(done.errors?.data).toMatchObject(errors);
    expect(done.output_file_id).toBeNull();
    expect(target.stats.batch).toMatchObject({ batchesFailed: 1, requestsAnswered: 0 });
  });

  it('fails a file over the limits of requests or bytes', async () => {
    const target = await scriptedEndpoint({ batch: { maxRequests: 2, maxBytes: 2000 } });
    const client = clientFor(target);
    const many = await settled(client, (await submit(client, jsonl([requestLine('a', 'x'), requestLine('b', 'x'), requestLine('c', 'x')]))).id);
    expect(many.status).toBe('failed');
    expect(many.errors?.data).toMatchObject([{ code: 'request_limit_exceeded', line: null }]);
    const big = await settled(client, (await submit(client, jsonl([requestLine('a', 'x'.repeat(2000))]))).id);
    expect(big.status).toBe('failed');
    expect(big.errors?.data).toMatchObject([{ code: 'file_too_large', line: null }]);
    const fits = await settled(client, (await submit(client, jsonl([requestLine('a', 'x'), requestLine('b', 'x')]))).id);
    expect(fits.status).toBe('completed');
  });

  it.each([
    ['an endpoint it does not serve', { endpoint: '/v1/embeddings' }, 'endpoint'],
    ['a completion window other than 24h', { completion_window: '1h' }, 'completion_window'],
    ['metadata that is not strings', { metadata: { n: 1 } }, 'metadata'],
  ])('refuses a batch with %s (400)', async (_name, change, param) => {
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    const file = await upload(client, jsonl([requestLine('a', 'x')]));
    const params = { input_file_id: file, endpoint: '/v1/chat/completions', completion_window: '24h', ...change } as OpenAI.Batches.BatchCreateParams;
    await expect(client.batches.create(params)).rejects.toMatchObject({ status: 400, param });
    expect(target.stats.batch.batchesCreated).toBe(0);
  });

  it('refuses a batch of an unknown file (404), and of a file of another purpose (400)', async () => {
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    await expect(client.batches.create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const tuning = await client.files.create({ file: await toFile(Buffer.from(jsonl([requestLine('a', 'x')])), 'x.jsonl'), purpose: 'fine-tune' });
    await expect(client.batches.create({ input_file_id: tuning.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toBeInstanceOf(
      OpenAI.BadRequestError,
    );
    await expect(client.batches.retrieve('batch_nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('cancelling', () => {
  it('goes through cancelling to cancelled, and every line says it was not run', async () => {
    // A delay no test outlives: the cancel, not the delay, ends the batch.
    const target = await scriptedEndpoint({ batch: { delayMs: 3_600_000 } });
    const client = clientFor(target);
    const created = await submit(client, jsonl([requestLine('a', 'x'), requestLine('b', 'y')]));
    const cancelling = await client.batches.cancel(created.id);
    expect(cancelling.status).toBe('cancelling');
    expect(typeof cancelling.cancelling_at).toBe('number');
    const done = await settled(client, created.id);
    expect(done.status).toBe('cancelled');
    expect(typeof done.cancelled_at).toBe('number');
    expect(done.output_file_id).toBeNull();
    expect((await linesOf(client, done.error_file_id)).map((line) => [line['custom_id'], line['response'], (line['error'] as { code: string }).code])).toEqual([
      ['a', null, 'batch_cancelled'],
      ['b', null, 'batch_cancelled'],
    ]);
    expect(target.stats.batch).toMatchObject({ batchesCancelled: 1, requestsAnswered: 0 });
  });

  it('refuses to cancel a finished batch (409)', async () => {
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    const done = await settled(client, (await submit(client, jsonl([requestLine('a', 'x')]))).id);
    const refusal = client.batches.cancel(done.id);
    await expect(refusal).rejects.toBeInstanceOf(OpenAI.ConflictError);
    await expect(refusal).rejects.toMatchObject({ message: expect.stringContaining("Cannot cancel a batch with status 'completed'.") });
  });
});

describe('the configured failures', () => {
  it('expires the batches asked for: the first half of the lines answered, the rest batch_expired', async () => {
    const target = await scriptedEndpoint({ batch: { expireNth: [2] } });
    const client = clientFor(target);
    const lines = ['a', 'b', 'c', 'd'].map((id) => requestLine(id, `prompt ${id}`));
    expect((await settled(client, (await submit(client, jsonl(lines))).id)).status).toBe('completed');
    const expired = await settled(client, (await submit(client, jsonl(lines.map((line) => ({ ...line, custom_id: `${line.custom_id}2` }))))).id);
    expect(expired.status).toBe('expired');
    expect(typeof expired.expired_at).toBe('number');
    expect(expired.request_counts).toEqual({ total: 4, completed: 2, failed: 2 });
    expect((await linesOf(client, expired.output_file_id)).map((line) => line['custom_id'])).toEqual(['a2', 'b2']);
    expect(
      (await linesOf(client, expired.error_file_id)).map((line) => [line['custom_id'], line['response'], (line['error'] as { code: string }).code]),
    ).toEqual([
      ['c2', null, 'batch_expired'],
      ['d2', null, 'batch_expired'],
    ]);
    expect(target.stats.batch.batchesExpired).toBe(1);
  });

  it('fails a seeded share of lines, the same ones on every run, and a resubmitted custom_id draws again', async () => {
    const lines = Array.from({ length: 40 }, (_, n) => requestLine(`r${n}`, `prompt ${n}`));
    const failedIds = async (seed: number): Promise<{ first: unknown[]; again: unknown[]; submissions: number | undefined }> => {
      const target = await scriptedEndpoint({ seed, batch: { failShare: 0.5 } });
      const client = clientFor(target);
      const failed = async (): Promise<unknown[]> => {
        const done = await settled(client, (await submit(client, jsonl(lines))).id);
        expect(done.status).toBe('completed');
        const errors = await linesOf(client, done.error_file_id);
        expect(errors.every((line) => line['response'] === null && (line['error'] as { code: string }).code === 'batch_failed')).toBe(true);
        expect(done.request_counts).toEqual({ total: 40, completed: 40 - errors.length, failed: errors.length });
        return errors.map((line) => line['custom_id']);
      };
      const first = await failed();
      const again = await failed();
      return { first, again, submissions: target.stats.batch.submissions.get('r0') };
    };
    const one = await failedIds(1);
    expect(one.first.length).toBeGreaterThan(5);
    expect(one.first.length).toBeLessThan(35);
    expect(await failedIds(1)).toEqual(one);
    expect(one.again).not.toEqual(one.first);
    expect(one.submissions).toBe(2);
    expect((await failedIds(2)).first).not.toEqual(one.first);
  });
});

describe('the rules of the synchronous route', () => {
  it("apply to a batch's lines: a fault's HTTP error goes to the error file, a reply fault into the completion", async () => {
    const faulty: Script = {
      faults: [
        { kind: 'server_error', when: { prompt: { contains: 'break' } } },
        { kind: 'hallucinated_tool', when: { prompt: { contains: 'invent' } }, tool_name: 'made_up' },
        { kind: 'timeout', when: { prompt: { contains: 'hang' } } },
      ],
    };
    const target = await scriptedEndpoint({ script: faulty });
    const client = clientFor(target);
    const done = await settled(
      client,
      (
        await submit(
          client,
          jsonl([requestLine('ok', 'hello'), requestLine('broken', 'break it'), requestLine('invented', 'invent a tool'), requestLine('hung', 'hang')]),
        )
      ).id,
    );
    expect(done.request_counts).toEqual({ total: 4, completed: 2, failed: 2 });
    const output = byCustomId(await linesOf(client, done.output_file_id));
    expect(output.get('invented')).toMatchObject({
      response: { status_code: 200, body: { choices: [{ message: { tool_calls: [{ function: { name: 'made_up' } }] } }] } },
    });
    const errors = byCustomId(await linesOf(client, done.error_file_id));
    expect(errors.get('broken')).toMatchObject({ response: { status_code: 500, body: { error: { type: 'server_error' } } }, error: null });
    expect(errors.get('hung')).toMatchObject({ response: null, error: { code: 'request_timeout' } });
    expect(target.stats.requests).toBe(0);
  });
});

describe('closing', () => {
  it('ends a batch still in progress: close() resolves, and nothing answers after it', async () => {
    const target = await startScriptedEndpoint({ batch: { delayMs: 3_600_000 } });
    const client = clientFor(target);
    const created = await submit(client, jsonl([requestLine('a', 'x')]));
    await until(async () => (await client.batches.retrieve(created.id)).status === 'in_progress');
    await target.close();
    expect(target.stats.batch).toMatchObject({ batchesCreated: 1, requestsAnswered: 0 });
  });
});

describe('hermes-testkit serve', () => {
  it('takes the batch flags, serves /testkit/stats, and logs the batch counts when stopped', async () => {
    const serve = await serveInProcess(['--batch-delay-ms', '0', '--batch-expire-nth', '2', '--batch-max-requests', '3']);
    const { url } = serve;
    const client = new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0 });
    const lines = [requestLine('a', 'x'), requestLine('b', 'y')];
    expect((await settled(client, (await submit(client, jsonl(lines))).id)).status).toBe('completed');
    expect((await settled(client, (await submit(client, jsonl(lines))).id)).status).toBe('expired');
    const tooMany = await settled(client, (await submit(client, jsonl([...lines, requestLine('c', 'z'), requestLine('d', 'w')]))).id);
    expect(tooMany.errors?.data).toMatchObject([{ code: 'request_limit_exceeded' }]);
    const stats = (await (await fetch(`${url}/testkit/stats`)).json()) as { requests: number; batch: Record<string, unknown> };
    expect(stats.requests).toBe(0);
    expect(stats.batch).toMatchObject({ filesUploaded: 3, batchesCreated: 3, batchesExpired: 1, batchesFailed: 1, submissions: { a: 3, b: 3, c: 1, d: 1 } });
    expect(await serve.stop()).toBe(ExitCode.terminated);
    expect(serve.stderr()).toContain('stats: {"requests":0,"answered":0,"refused":0}');
    expect(serve.stderr()).toMatch(/batch stats: \{"filesUploaded":3,"batchesCreated":3,.*"customIds":4,"resubmitted":\["a","b"\]\}/);
  });

  it.each([
    [['--batch-delay-ms', '-1'], /--batch-delay-ms must be a number of milliseconds from 0 up/],
    [['--batch-fail-share', '1.5'], /--batch-fail-share must be a share from 0 to 1/],
    [['--batch-expire-share', '-0.1'], /--batch-expire-share must be a share from 0 to 1/],
    [['--batch-expire-nth', '0'], /--batch-expire-nth must be a batch number from 1 up/],
    [['--batch-max-requests', '0'], /--batch-max-requests must be a whole number above 0/],
    [['--batch-max-bytes', '1.5'], /--batch-max-bytes must be a whole number above 0/],
  ])('refuses %j with a usage error', async (flags, message) => {
    const bad = await runInProcess(spec, ['serve', ...flags]);
    expect(bad.code).toBe(ExitCode.usage);
    expect(bad.stderr).toMatch(message);
    expect(bad.stdout).toBe('');
  });
});
