// One writer per run directory, with real processes: two invocations of one run started at once, and
// two started one after the other while the first still runs. One runs, the other is refused at once
// (exit 2, naming the holder), and the run ends with every record exactly once. The first is held in
// the run by one prompt whose reply never comes (a slow fault), so the second meets it running on any
// machine, and it is then stopped with SIGTERM (--grace 0) and the run finished by a --resume.
import type { ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptId } from '@hermes-datagen/core';
import type { ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { startGenerate, TEST_MODEL, type EndedGenerate, type StartedGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { shardOf } from '@hermes-datagen/generate/internal/run/shard.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { until } from '../util/until.js';

const PROMPTS = [...Array.from({ length: 30 }, (_, i) => ({ prompt: `task ${i}` })), { prompt: 'the [slow] one' }];

function start(url: string, dir: string, extra: readonly string[] = []): StartedGenerate {
  return startGenerate(dir, [
    'prompts.jsonl',
    ...['--base-url', url, '--model', TEST_MODEL, '--run-name', 'r', '--resume', '--toolsets', 'todo', '--grace', '0'],
    ...['--workspace-root', join(dir, 'workspaces'), ...extra],
  ]);
}

/** The endpoint; with `hold`, the [slow] prompt's reply never comes while the test runs. */
function runEndpoint(hold: boolean, port = 0): Promise<ScriptedEndpoint> {
  return scriptedEndpoint({
    apiKey: TEST_API_KEY,
    port,
    script: {
      sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Done.', content: 'finished' }] }],
      faults: hold ? [{ kind: 'slow', delay_ms: 600_000, when: { prompt: { contains: '[slow]' } } }] : [],
    },
  });
}

/** The refused invocation: exit 2 at once, naming the holder's pid; nothing of it on stdout. */
function expectRefused(refused: EndedGenerate, holder: ChildProcess): void {
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toMatch(new RegExp(`is in use by another invocation \\(pid ${holder.pid} on .+, started `));
  expect(refused.stdout).toBe('');
}

/** Stops the holder, resumes to the end, and checks every row has exactly one record. */
async function finishAndCheck(dir: string, holder: StartedGenerate, endpoint: ScriptedEndpoint): Promise<void> {
  holder.child.kill('SIGTERM');
  expect((await holder.ended).code).toBe(143);
  // The same address (the run's manifest names it), now answering the held prompt too.
  const port = Number(new URL(endpoint.url).port);
  await endpoint.close();
  const restarted = await runEndpoint(false, port);
  const last = await start(restarted.url, dir).ended;
  expect(last.code, last.stderr).toBe(0);
  const run = expectRunInvariants(join(dir, 'data', 'r'));
  expect(run.records.map((record) => record['id']).sort()).toEqual(PROMPTS.map((row, i) => promptId(row, i)).sort());
  expect(existsSync(join(dir, 'data', 'r', 'run.lock'))).toBe(false);
}

describe('hermes-generate: one invocation per run directory', () => {
  it('two started at once: one runs, the other is refused at once naming it, and the records are exactly once', async () => {
    const endpoint = await runEndpoint(true);
    const dir = tempDir('hermes-lock-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(PROMPTS) });
    const twins = [start(endpoint.url, dir), start(endpoint.url, dir)];
    const first = await Promise.race(twins.map(async (twin, i) => ({ i, ...(await twin.ended) })));
    const holder = twins[1 - first.i]!;
    expectRefused(first, holder.child);
    await finishAndCheck(dir, holder, endpoint);
  });

  it('a second started while the first runs: refused at once, the first goes on, the records are exactly once', async () => {
    const endpoint = await runEndpoint(true);
    const dir = tempDir('hermes-lock-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(PROMPTS) });
    const first = start(endpoint.url, dir);
    // Once the first has written records, it is well inside its run.
    await until(() => existsSync(join(dir, 'data', 'r', 'batch_0.jsonl')));
    const second = await start(endpoint.url, dir).ended;
    expectRefused(second, first.child);
    expect(first.child.exitCode).toBeNull();
    await finishAndCheck(dir, first, endpoint);
  });

  it('two shards given one run name at once: one runs its shard, the other is refused, and no record of the refused shard is written', async () => {
    const endpoint = await runEndpoint(true);
    const dir = tempDir('hermes-lock-');
    // A held prompt in each shard, so whichever shard wins is still running when the other tries.
    const candidates = Array.from({ length: 20 }, (_, i) => `held-${i}`);
    const held = [0, 1].map((shard) => candidates.find((id) => shardOf(id, 2) === shard)!);
    const rows = [...Array.from({ length: 20 }, (_, i) => ({ id: `row-${i}`, prompt: `task ${i}` })), ...held.map((id) => ({ id, prompt: `${id} [slow]` }))];
    writeFiles(dir, { 'prompts.jsonl': jsonl(rows) });
    const shards = [start(endpoint.url, dir, ['--shard', '0/2']), start(endpoint.url, dir, ['--shard', '1/2'])];
    const refused = await Promise.race(shards.map(async (shard, i) => ({ i, ...(await shard.ended) })));
    const holder = shards[1 - refused.i]!;
    expectRefused(refused, holder.child);
    // The refusal can come before the holder has finished a prompt: stop it only once it has written one.
    const firstBatch = join(dir, 'data', 'r', 'batch_0.jsonl');
    await until(() => existsSync(firstBatch) && statSync(firstBatch).size > 0);
    holder.child.kill('SIGTERM');
    expect((await holder.ended).code).toBe(143);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    const ids = run.records.map((record) => record['id'] as string);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(shardOf(id, 2), `${id} is of the shard that ran`).toBe(1 - refused.i);
    expect(run.manifest.invocations).toHaveLength(1);
    expect(run.manifest['shard']).toBe(`${1 - refused.i}/2`);
  });
});
