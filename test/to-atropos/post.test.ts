// --post end to end against a local Atropos API server (atroposServer.ts): the exporter waits for the
// trainer's registration, registers as an environment, sends gzip batches of whole groups under its
// env_id, reports what is still queued, retries 5xx, and stops on 4xx with the server's message. The
// server's own documented rules (messages-only groups rejected, the ordering bug, packing by
// environment once one sets min_batch_allocation) are checked too, so the stand-in is known to behave
// like Atropos.
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
    [
      'in.jsonl',
      '--emit',
      'scored',
      '--score',
      'completed',
      ...(extra.includes('--group-size') ? [] : ['--group-size', '2']),
      '--tokenizer',
      tokenizerDir,
      '--post',
      url,
      '--post-retry-ms',
      '5',
      ...extra,
    ],
    { cwd: dir },
  );
}

describe('--post', () => {
  it('waits for the trainer, registers as an environment, posts gzip batches under its env_id, and reports them queued', async () => {
    const server = await serve({ registerAfterPolls: { polls: 3, batchSize: 4, maxTokenLen: 4096 } });
    const result = await exportTo(server);
    expect(result.code).toBe(0);
    expect(server.infoPolls).toBe(3);
    expect(result.stderr).toContain('waiting for');
    expect(server.envs).toEqual([{ max_token_length: 4096, desired_name: 'hermes-to-atropos', weight: 1, group_size: 2 }]);
    expect(result.stderr).toContain('registered as env_id 0 (hermes-to-atropos_0): group size 2, max token length 4096, trainer batch size 4');
    expect(server.posts.map((p) => [p.encoding, p.groups.length, p.afterRegister])).toEqual([
      ['gzip', 2, true],
      ['gzip', 2, true],
    ]);
    // What was posted is what was written, under the env_id (the written lines have none, as process mode's).
    expect(server.posts.flatMap((p) => p.groups)).toEqual(parseJsonl(result.stdout).map((group) => ({ ...(group as object), env_id: 0 })));
    // Sent is not consumed: no trainer took a batch yet.
    expect(result.stderr).toContain("sent 4 groups in 2 posts; the server's queue holds 4 groups not yet taken by a trainer");
    const trainer = async () => ((await (await fetch(`${server.url}/batch`)).json()) as { batch: { scores: number[] }[] | null }).batch;
    expect((await trainer())?.flatMap((g) => g.scores)).toEqual([1, 0, 1, 0]);
    expect((await trainer())?.length).toBe(2);
    expect(await trainer()).toBeNull();
  });

  it('waits while the server says the trainer has not started, within --post-wait', async () => {
    const server = await serve({ registerAfterPolls: { polls: 1, batchSize: 4, maxTokenLen: 4096 }, startAfterEnvPolls: 2 });
    const result = await exportTo(server);
    expect(result.code).toBe(0);
    expect(server.envPolls).toBe(3);
    expect(result.stderr).toContain('waiting to register with');
    expect(result.stderr).toContain('the trainer has not asked for a batch yet');
    const never = await serve({ registerAfterPolls: { polls: 1, batchSize: 4, maxTokenLen: 4096 }, startAfterEnvPolls: 1_000_000 });
    const gaveUp = await exportTo(never, ['--post-wait', '0.05']);
    expect(gaveUp.code).toBe(4);
    expect(gaveUp.stderr).toMatch(/gave up registering with .*\/register-env.*the trainer has not asked for a batch yet/);
  });

  it('is packed though another environment sets min_batch_allocation, where unregistered groups starve', async () => {
    const server = await serve({});
    server.register(4, 4096);
    server.started = true;
    const other = { max_token_length: 4096, desired_name: 'gsm8k', weight: 1, group_size: 2, min_batch_allocation: 0.5 };
    expect(server.registerEnv(other)).toMatchObject({ status: 'success', env_id: 0 });
    const post = (groups: unknown) => fetch(`${server.url}/scored_data_list`, { method: 'POST', body: JSON.stringify(groups) });
    const group = (envId: number | null, score: number) => ({ tokens: [[1], [2]], masks: [[-100], [2]], scores: [score, 0], env_id: envId });
    await post([group(0, 7), group(0, 8)]);
    // Groups without an env_id are never packed once an environment asks for a minimum share.
    await post([group(null, 9), group(null, 9)]);
    const trainer = async () => ((await (await fetch(`${server.url}/batch`)).json()) as { batch: { scores: number[]; env_id: number | null }[] | null }).batch;
    expect((await trainer())?.map((g) => g.env_id)).toEqual([0, 0]);
    expect(await trainer()).toBeNull();
    await post([group(0, 7)]);
    const result = await exportTo(server);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('registered as env_id 1');
    // gsm8k's minimum half first, then ours; the unregistered groups stay behind.
    expect((await trainer())?.map((g) => [g.env_id, g.scores[0]])).toEqual([
      [0, 7],
      [1, 1],
    ]);
    expect(server.queue.filter((g) => g['env_id'] === null)).toHaveLength(2);
  });

  it('warns when --group-size cannot fill the trainer batches, and says the groups are still queued at the end', async () => {
    const server = await serve({ registerAfterPolls: { polls: 1, batchSize: 8, maxTokenLen: 4096 } });
    const result = await exportTo(server, ['--group-size', '1']);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('cannot fill');
    const three = await serve({ registerAfterPolls: { polls: 1, batchSize: 8, maxTokenLen: 4096 } });
    const dir = tempDir();
    const triples = [0, 1].flatMap((p) =>
      [1, 2, 3].map((k) =>
        trajectory({ id: `t${p}-${k}`, prompt_index: p, completed: k !== 2, conversations: [human(`T${p}`), gpt({ think: 'T.', text: `A${k}` })] }),
      ),
    );
    writeFiles(dir, { 'in.jsonl': jsonl(triples) });
    const uneven = await runInProcess(
      spec,
      ['in.jsonl', '--emit', 'scored', '--score', 'completed', '--group-size', '3', '--tokenizer', tokenizerDir, '--post', three.url, '--post-retry-ms', '5'],
      { cwd: dir },
    );
    expect(uneven.code).toBe(0);
    expect(uneven.stderr).toContain("--group-size 3 cannot fill the trainer's batches of 8 sequences");
    expect(uneven.stderr).toContain("sent 2 groups in 1 posts; the server's queue holds 2 groups not yet taken by a trainer");
    expect((await (await fetch(`${three.url}/batch`)).json()) as unknown).toEqual({ batch: null });
  });

  it('with nothing to send exits 0 at once, without asking the server', async () => {
    const server = await serve({});
    const dir = tempDir();
    writeFiles(dir, { 'empty.jsonl': '' });
    const result = await runInProcess(spec, ['empty.jsonl', '--emit', 'scored', '--group-size', '2', '--tokenizer', tokenizerDir, '--post', server.url], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(server.infoPolls).toBe(0);
    expect(server.envPolls).toBe(0);
  });

  it('needs --group-size N (exit 2 before reading)', async () => {
    const server = await serve({});
    const result = await exportTo(server, ['--group-size', 'auto']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--post needs --group-size N');
    expect(server.infoPolls).toBe(0);
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
