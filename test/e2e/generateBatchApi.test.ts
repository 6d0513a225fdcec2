// hermes-generate --batch-api end to end: the real CLI against the testkit's batch API (/v1/files,
// /v1/batches). The demo's prompts give the records of the synchronous run, with no request to
// /chat/completions and each call priced less its batch_discount; a run killed between submit and
// poll (and one whose kill came before its batch was recorded) resumes without submitting any
// custom_id twice; failed lines and an expired batch are sent again, and past --batch-retries the
// prompt fails as batch-failed; sub-agents run through batches too; SIGINT cancels nothing unless
// --cancel-on-exit.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '@hermes-datagen/core';
import type { BatchOptions, Script, ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, REPO_ROOT, tempDir } from '../util/cli.js';
import { expectNoSecret, TEST_MODEL } from '../util/generate.js';
import { expectRunInvariants, trajectoriesOf } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { until } from '../util/until.js';

function serve(batch: BatchOptions, script?: Script, apiKey?: string): Promise<ScriptedEndpoint> {
  return scriptedEndpoint({ batch, ...(script === undefined ? {} : { script }), ...(apiKey === undefined ? {} : { apiKey }) });
}

interface Invocation {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface Trigger {
  readonly when: () => boolean;
  readonly act: (signal: (s: NodeJS.Signals) => void) => void;
}

/** One hermes-generate run in `dir` (run directory data/<name>), from `cwd` (default `dir`); once `on.when` holds, `on.act`. */
function invoke(url: string, dir: string, args: readonly string[], on?: Trigger, cwd = dir): Promise<Invocation> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        binPath('generate', 'hermes-generate'),
        '--base-url',
        url,
        '--model',
        TEST_MODEL,
        '--workspace-root',
        join(dir, 'workspaces'),
        '--output-root',
        join(dir, 'data'),
        ...args,
      ],
      { cwd, env: { PATH: process.env['PATH'] ?? '', HERMES_API_KEY: TEST_API_KEY, SHLVL: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const poll =
      on === undefined
        ? undefined
        : setInterval(() => {
            if (!on.when()) return;
            clearInterval(poll);
            on.act((signal) => child.kill(signal));
          }, 5);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const ledgerPath = (dir: string, run: string): string => join(dir, 'data', run, 'batch-api.jsonl');
const ledgerLines = (dir: string, run: string): string[] =>
  existsSync(ledgerPath(dir, run))
    ? readFileSync(ledgerPath(dir, run), 'utf8')
        .split('\n')
        .filter((line) => line.endsWith('}'))
    : [];
const batchLines = (dir: string, run: string): number => ledgerLines(dir, run).filter((line) => line.includes('"event":"batch"')).length;

function byId(records: readonly Trajectory[]): Map<string | undefined, Trajectory> {
  return new Map(records.map((record) => [record.id, record]));
}

function expectEachSubmittedOnce(server: ScriptedEndpoint): void {
  const twice = [...server.stats.batch.submissions].filter(([, count]) => count !== 1);
  expect(twice, 'custom_ids submitted more than once').toEqual([]);
}

const PROMPTS = join(REPO_ROOT, 'fixtures', 'prompts.jsonl');
const PRICES = { [TEST_MODEL]: { input: 2, output: 8, batch_discount: 0.5 } };

describe('hermes-generate --batch-api', () => {
  it("gives the demo's records of the synchronous run, with no request to /chat/completions, at the batch price", async () => {
    const server = await serve({ delayMs: 20 });
    const dir = tempDir('hermes-batch-api-');
    writeFileSync(join(dir, 'prices.json'), JSON.stringify(PRICES));
    // From the repository, as make demo runs it: the rows' cwd are relative to it.
    const common = [PROMPTS, '--distribution', 'development', '--seed', '1', '--prices', join(dir, 'prices.json')];
    const sync = await invoke(server.url, dir, [...common, '--run-name', 'sync'], undefined, REPO_ROOT);
    expect(sync.code, sync.stderr).toBe(0);
    const syncRequests = server.stats.requests;
    expect(syncRequests).toBeGreaterThan(32);
    expect(server.stats.batch.batchesCreated).toBe(0);

    const batch = await invoke(server.url, dir, [...common, '--run-name', 'batch', '--batch-api', '--batch-poll-ms', '20'], undefined, REPO_ROOT);
    expect(batch.code, batch.stderr).toBe(0);
    expect(server.stats.requests, 'requests to /chat/completions').toBe(syncRequests);
    expectEachSubmittedOnce(server);

    const synced = byId(trajectoriesOf(expectRunInvariants(join(dir, 'data', 'sync'))));
    const batched = trajectoriesOf(expectRunInvariants(join(dir, 'data', 'batch')));
    expect(batched).toHaveLength(32);
    expect(synced.size).toBe(32);
    expect(server.stats.batch.requestsAnswered).toBe(batched.reduce((n, r) => n + r.api_calls + (r.completed ? 0 : 1), 0));
    for (const record of batched) {
      const twin = synced.get(record.id)!;
      expect(record.conversations, record.id).toEqual(twin.conversations);
      expect(record.tool_stats, record.id).toEqual(twin.tool_stats);
      expect(record.metadata.cost_usd, record.id).toBeCloseTo(twin.metadata.cost_usd! * 0.5, 9);
    }
    // Every call's request went in a batch under its record id and turn.
    for (const record of batched) expect(server.stats.batch.submissions.get(`${record.id ?? ''}@t0`), record.id).toBe(1);
    for (const run of [sync, batch]) expectNoSecret(dir, run);
  });

  it('killed between submit and poll, and once before its batch was recorded, resumes without submitting any custom_id twice', async () => {
    // Batches take long enough that the kill lands while one is in progress.
    const server = await serve({ delayMs: 1500 });
    const dir = tempDir('hermes-batch-api-kill-');
    const prompts = Array.from({ length: 12 }, (_, i) => ({ id: `p${i}`, prompt: `Write a python script that prints ${i} and check it (task ${i})` }));
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    const args = ['prompts.jsonl', '--run-name', 'k', '--toolsets', 'file', '--batch-api', '--batch-poll-ms', '50'];

    const first = await invoke(server.url, dir, args, { when: () => batchLines(dir, 'k') >= 1, act: (signal) => signal('SIGKILL') });
    expect(first.signal).toBe('SIGKILL');
    const submittedBeforeKill = [...server.stats.batch.submissions.keys()];
    expect(submittedBeforeKill.length).toBeGreaterThan(0);

    const second = await invoke(server.url, dir, [...args, '--resume'], {
      when: () => batchLines(dir, 'k') >= 2 && server.stats.batch.batchesCreated >= 2,
      act: (signal) => signal('SIGKILL'),
    });
    expect(second.signal).toBe('SIGKILL');
    // As if the kill had come between the batch's creation and its ledger line: the provider has the
    // batch, the ledger only its upload. The resume must find it by its input file, not create another.
    const lines = ledgerLines(dir, 'k');
    const lastBatch = lines.findLastIndex((line) => line.includes('"event":"batch"'));
    writeFileSync(
      ledgerPath(dir, 'k'),
      lines
        .filter((_, i) => i !== lastBatch)
        .map((line) => `${line}\n`)
        .join(''),
    );
    const createdBefore = server.stats.batch.batchesCreated;

    const last = await invoke(server.url, dir, [...args, '--resume']);
    expect(last.code, last.stderr).toBe(0);
    expect(server.stats.requests, 'requests to /chat/completions').toBe(0);
    expectEachSubmittedOnce(server);
    // Re-attached rather than sent again: no call needed a second attempt, and what was in flight at each kill was collected.
    expect([...server.stats.batch.submissions.keys()].filter((id) => /@t\d+r\d+$/.test(id))).toEqual([]);
    for (const id of submittedBeforeKill) expect(server.stats.batch.submissions.get(id)).toBe(1);
    expect(server.stats.batch.batchesCreated).toBeGreaterThan(createdBefore);

    const records = trajectoriesOf(expectRunInvariants(join(dir, 'data', 'k')));
    expect(records.map((r) => r.id).sort()).toEqual(prompts.map((p) => p.id).sort());
    for (const run of [first, second, last]) expectNoSecret(dir, run);
  });

  it('sends failed lines and the entries of an expired batch again under new custom_ids, and every prompt finishes', async () => {
    const server = await serve({ delayMs: 20, failShare: 0.3, expireNth: [1] });
    const dir = tempDir('hermes-batch-api-retry-');
    const prompts = Array.from({ length: 8 }, (_, i) => ({ id: `p${i}`, prompt: `Write a python script that prints ${i} and check it (task ${i})` }));
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    const run = await invoke(server.url, dir, [
      'prompts.jsonl',
      '--run-name',
      'f',
      '--toolsets',
      'file',
      '--batch-api',
      '--batch-poll-ms',
      '20',
      '--batch-retries',
      '8',
      '--progress',
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The progress line's batch part (its last drawing: in flight states depend on when it is drawn).
    const last = /batch API: round \d+, no batch in flight, (\d+)\/(\d+) requests answered, (\d+) failed/.exec(
      run.stderr.split('\n').findLast((line) => line.includes('batch API')) ?? '',
    );
    expect(last, 'the last progress line').not.toBeNull();
    // Every request sent was answered or failed (and then sent again under another custom_id).
    expect(Number(last![1]) + Number(last![3])).toBe(Number(last![2]));
    expect(Number(last![2])).toBe(server.stats.batch.submissions.size);
    expect(server.stats.batch.batchesExpired).toBeGreaterThanOrEqual(1);
    expectEachSubmittedOnce(server);
    const again = [...server.stats.batch.submissions.keys()].filter((id) => /@t\d+r\d+$/.test(id));
    expect(again.length).toBeGreaterThan(0);
    // The first batch expired whole: the first requests it held went again.
    expect(again.some((id) => id.endsWith('@t0r1'))).toBe(true);
    const records = trajectoriesOf(expectRunInvariants(join(dir, 'data', 'f')));
    expect(records).toHaveLength(prompts.length);
    expect(server.stats.requests).toBe(0);
  });

  it('fails a prompt as batch-failed once its request failed in --batch-retries + 1 batches (exit 4, run again on --resume)', async () => {
    const server = await serve({ delayMs: 10, failShare: 1 });
    const dir = tempDir('hermes-batch-api-fail-');
    const prompts = [
      { id: 'a', prompt: 'say hello' },
      { id: 'b', prompt: 'say goodbye' },
    ];
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    const run = await invoke(server.url, dir, ['prompts.jsonl', '--run-name', 'x', '--batch-api', '--batch-poll-ms', '10', '--batch-retries', '1']);
    expect(run.code, run.stderr).toBe(4);
    const contents = expectRunInvariants(join(dir, 'data', 'x'));
    expect(contents.records).toEqual([]);
    expect(contents.failures.map((f) => [f.id, f.error_class]).sort()).toEqual([
      ['a', 'batch-failed'],
      ['b', 'batch-failed'],
    ]);
    for (const failure of contents.failures) expect(failure.reason).toMatch(/failed the request of turn 0 2 times \(--batch-retries 1\); last: /);
    expect([...server.stats.batch.submissions.keys()].sort()).toEqual(['a@t0', 'a@t0r1', 'b@t0', 'b@t0r1']);
    expect(run.stderr).toContain('batch-failed');
  });

  it('runs sub-agents through batches, each under its own record id', async () => {
    const server = await serve(
      { delayMs: 10 },
      {
        sequences: [
          {
            match: { contains: 'split this' },
            replies: [
              {
                reasoning: 'Two parts.',
                tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ prompt: 'sub part A' }, { prompt: 'sub part B' }] } }],
              },
              { reasoning: 'Both answered.', content: 'combined answer' },
            ],
          },
          { match: { regex: '^sub part (.)' }, replies: [{ reasoning: 'My part.', content: 'sub answer' }] },
        ],
      },
    );
    const dir = tempDir('hermes-batch-api-delegate-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl([{ id: 'root', prompt: 'split this task' }]));
    const run = await invoke(server.url, dir, ['prompts.jsonl', '--run-name', 'd', '--toolsets', 'delegation,todo', '--batch-api', '--batch-poll-ms', '10']);
    expect(run.code, run.stderr).toBe(0);
    const records = trajectoriesOf(expectRunInvariants(join(dir, 'data', 'd')));
    expect(records.map((r) => r.id).sort()).toEqual(['root', 'root/d0.0', 'root/d0.1']);
    expect(records.find((r) => r.id === 'root')!.conversations.at(-1)!.value).toContain('combined answer');
    expect([...server.stats.batch.submissions.keys()].sort()).toEqual(['root/d0.0@t0', 'root/d0.1@t0', 'root@t0', 'root@t1']);
    expect(server.stats.requests).toBe(0);
  });

  it('on SIGINT leaves its batches running at the provider, and with --cancel-on-exit cancels them', async () => {
    // Long enough for both runs to be interrupted while their batch is in progress.
    const server = await serve({ delayMs: 4000 });
    const dir = tempDir('hermes-batch-api-sigint-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl([{ id: 'a', prompt: 'say hello' }]));
    const args = ['prompts.jsonl', '--batch-api', '--batch-poll-ms', '20', '--grace', '0'];
    const interrupt = (run: string): Trigger => ({ when: () => batchLines(dir, run) >= 1, act: (signal) => signal('SIGINT') });
    const kept = await invoke(server.url, dir, [...args, '--run-name', 'keep'], interrupt('keep'));
    expect(kept.code, kept.stderr).toBe(130);
    // The ledger still holds the batch, not closed: a --resume collects it.
    expect(ledgerLines(dir, 'keep').some((line) => line.includes('"event":"closed"'))).toBe(false);

    const cancelled = await invoke(server.url, dir, [...args, '--run-name', 'cancel', '--cancel-on-exit'], interrupt('cancel'));
    expect(cancelled.code, cancelled.stderr).toBe(130);
    expect(cancelled.stderr).toMatch(/--cancel-on-exit: batch \S+ cancelled/);
    expect(ledgerLines(dir, 'cancel').some((line) => line.includes('"status":"cancelled"'))).toBe(true);
    // A cancel takes effect at the provider's pace (the testkit's: at the end of the batch's delay).
    await until(() => server.stats.batch.batchesCancelled === 1);
    const listed = (await (await fetch(`${server.url}/batches?limit=10`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })).json()) as {
      data: { status: string; metadata: { run?: string } | null }[];
    };
    expect(listed.data.map((batch) => [batch.metadata?.run, batch.status]).sort()).toEqual([
      ['cancel', 'cancelled'],
      ['keep', expect.not.stringMatching(/cancel/)],
    ]);
  });

  it('names a refusal of the batch API as doctor names it: a refused key fails its prompts as unauthorized (exit 1)', async () => {
    const server = await serve({}, undefined, 'sk-another-key-the-run-does-not-have');
    const dir = tempDir('hermes-batch-api-401-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl([{ id: 'a', prompt: 'say hello' }]));
    const run = await invoke(server.url, dir, ['prompts.jsonl', '--run-name', 'r', '--batch-api', '--batch-poll-ms', '10']);
    expect(run.code, run.stderr).toBe(1);
    const contents = expectRunInvariants(join(dir, 'data', 'r'));
    expect(contents.failures.map((f) => [f.id, f.error_class])).toEqual([['a', 'unauthorized']]);
    expect(server.stats.batch.filesUploaded + server.stats.batch.batchesCreated).toBe(0);
    expectNoSecret(dir, run);
  });

  it('is a usage error (exit 2) outside run mode, and its flags are without it', async () => {
    const server = await serve({});
    const dir = tempDir('hermes-batch-api-usage-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl([{ prompt: 'say hello' }]));
    const stream = await invoke(server.url, dir, ['prompts.jsonl', '--batch-api']);
    expect(stream.code).toBe(2);
    expect(stream.stderr).toContain('--batch-api works in run mode only');
    const flag = await invoke(server.url, dir, ['prompts.jsonl', '--run-name', 'u', '--batch-poll-ms', '10']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--batch-poll-ms works with --batch-api only');
    expect(server.stats.requests + server.stats.batch.filesUploaded).toBe(0);
  });
});
