// --post end to end against a local Atropos API server (atroposServer.ts): the exporter waits for the
// trainer's registration, sends gzip batches of whole groups, retries 5xx, and stops on 4xx with the
// server's message. The server's own documented rules (messages-only groups rejected, the ordering
// bug) are checked too, so the stand-in is known to behave like Atropos.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/to-atropos';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, trajectory } from '../util/trajectories.js';
import { AtroposServer } from './atroposServer.js';
import { chatmlTokenizerDir } from './tokenizer.js';

// Four prompts, two samples each: one completed, one not (scores 1 and 0 under --score completed).
const records = [0, 1, 2, 3].flatMap((p) =>
  [true, false].map((completed) =>
    trajectory({
      id: `p${p}-${completed ? 'ok' : 'stopped'}`,
      prompt_index: p,
      completed,
      conversations: [human(`Task ${p}`), gpt({ think: 'Think.', text: `Answer ${p}` })],
    }),
  ),
);

const servers: AtroposServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function serve(options: ConstructorParameters<typeof AtroposServer>[0]): Promise<AtroposServer> {
  const server = await new AtroposServer(options).start();
  servers.push(server);
  return server;
}

let tokenizerDir: string;
beforeAll(() => {
  tokenizerDir = mkdtempSync(join(tmpdir(), 'hermes-tokenizer-'));
  cpSync(chatmlTokenizerDir(), tokenizerDir, { recursive: true });
});
afterAll(() => rmSync(tokenizerDir, { recursive: true, force: true }));

function exportTo(server: AtroposServer, extra: string[] = [], url = server.url) {
  const dir = tempDir();
  writeFiles(dir, { 'in.jsonl': jsonl(records) });
  return runInProcess(
    spec,
    ['in.jsonl', '--emit', 'scored', '--score', 'completed', '--group-size', '2', '--tokenizer', tokenizerDir, '--post', url, '--post-retry-ms', '5', ...extra],
    { cwd: dir },
  );
}

describe('--post', () => {
  it('waits for the trainer to register, then posts gzip batches of whole groups a trainer can take', async () => {
    const server = await serve({ registerAfterPolls: { polls: 3, batchSize: 4, maxTokenLen: 4096 } });
    const result = await exportTo(server);
    expect(result.code).toBe(0);
    expect(server.infoPolls).toBe(3);
    expect(result.stderr).toContain('waiting for');
    expect(server.posts.map((p) => [p.encoding, p.groups.length, p.afterRegister])).toEqual([
      ['gzip', 2, true],
      ['gzip', 2, true],
    ]);
    // What was posted is what was written, and the trainer gets it back in batches of 4 sequences.
    expect(server.posts.flatMap((p) => p.groups)).toEqual(parseJsonl(result.stdout));
    const trainer = async () => ((await (await fetch(`${server.url}/batch`)).json()) as { batch: { scores: number[] }[] | null }).batch;
    expect((await trainer())?.flatMap((g) => g.scores)).toEqual([1, 0, 1, 0]);
    expect((await trainer())?.length).toBe(2);
    expect(await trainer()).toBeNull();
    expect(result.stderr).toContain('posted 4 groups in 2 batches');
  });

  it('takes --max-token-len from /info: groups with a sequence that long are not sent', async () => {
    const server = await serve({ registerAfterPolls: { polls: 1, batchSize: 4, maxTokenLen: 10 } });
    const result = await exportTo(server);
    expect(result.code).toBe(1);
    expect(server.posts).toEqual([]);
    expect(result.stderr).toContain('dropped 4 groups: too_long 4; 8 sequences at or over --max-token-len');
    expect(result.stderr).toContain('nothing written from 8 scored records: sequences reached --max-token-len');
  });

  it('retries a 5xx and succeeds', async () => {
    const server = await serve({ registerAfterPolls: { polls: 1, batchSize: 8, maxTokenLen: -1 }, failures: { count: 2, status: 503 } });
    const result = await exportTo(server);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/answered 503.*retrying in 5 ms/);
    expect(server.posts.flatMap((p) => p.groups)).toHaveLength(4);
  });

  it('gives up on a lasting 5xx with exit 4', async () => {
    const server = await serve({ registerAfterPolls: { polls: 1, batchSize: 8, maxTokenLen: -1 }, failures: { count: 100, status: 500 } });
    const result = await exportTo(server, ['--post-retries', '3']);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/gave up after 3 attempts/);
  });

  it("stops on a 4xx with the server's message, exit 1, without retrying", async () => {
    const failures = { count: 2, status: 422, detail: 'groups rejected by the test server' };
    const server = await serve({ registerAfterPolls: { polls: 1, batchSize: 8, maxTokenLen: -1 }, failures });
    const result = await exportTo(server);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/scored_data_list answered 422: {"detail":"groups rejected by the test server"}');
    expect(failures.count).toBe(1);
  });

  it('stops when the URL is not an Atropos server (404 on /info), exit 1', async () => {
    const server = await serve({});
    const result = await exportTo(server, [], `${server.url}/nowhere`);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GET .*\/nowhere\/info answered 404: \{"detail":"Not Found"\}/);
  });

  it('gives up waiting for a trainer that never registers, exit 4', async () => {
    const server = await serve({});
    const result = await exportTo(server, ['--post-wait', '0.05']);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/gave up waiting for .*\/info to report a batch size.*batch_size -1/);
    expect(server.posts).toEqual([]);
  });
});

describe('the stand-in server behaves as Atropos documents', () => {
  const post = (server: AtroposServer, groups: unknown) =>
    fetch(`${server.url}/scored_data_list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(groups) });

  it('rejects messages-only groups and messages without content with 422', async () => {
    const server = await serve({});
    server.register(4, 100);
    const messagesOnly = await post(server, [{ scores: [1], messages: [[{ role: 'user', content: 'hi' }]] }]);
    expect(messagesOnly.status).toBe(422);
    expect(await messagesOnly.text()).toContain('"loc":["body",0,"tokens"]');
    expect((await post(server, [{ tokens: [[1]], masks: [[1]], scores: [1], messages: [[{ role: 'user' }]] }])).status).toBe(422);
    expect((await post(server, [{ tokens: [[1]], masks: [[-100]], scores: [1] }])).status).toBe(200);
  });

  it('has the ordering bug: data posted before /register leaves /info at -1 for good', async () => {
    const server = await serve({});
    expect((await post(server, [{ tokens: [[1]], masks: [[-100]], scores: [1] }])).status).toBe(200);
    await fetch(`${server.url}/register`, { method: 'POST', body: JSON.stringify({ batch_size: 4, max_token_len: 100 }) });
    expect(await (await fetch(`${server.url}/info`)).json()).toEqual({ batch_size: -1, max_token_len: -1 });
  });
});
