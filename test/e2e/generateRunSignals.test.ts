// Stopping a run (--run-name): on SIGINT/SIGTERM no new prompt starts, the running ones get --grace
// seconds to finish and are written, and everything the run directory holds is brought up to date
// before the exit (130/143); prompts still running after the grace period are stopped unwritten;
// a second signal exits at once. Every stop leaves a run that --resume completes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, parseJsonl, tempDir, writeFiles } from '../util/cli.js';
import { expectNoSecret, startGenerate, TEST_MODEL, type StartedGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { until } from '../util/until.js';

function start(url: string, dir: string, args: readonly string[]): StartedGenerate {
  return startGenerate(dir, [
    'prompts.jsonl',
    ...['--base-url', url, '--model', TEST_MODEL, '--run-name', 'r', '--toolsets', 'todo', '--batch-size', '2', '--num-workers', '1'],
    ...['--workspace-root', join(dir, 'workspaces'), ...args],
  ]);
}

const REPLY = { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] }] };
const prompts = Array.from({ length: 10 }, (_, i) => ({ prompt: `task ${i}`, id: `t${i}` }));

describe('hermes-generate --run-name, stopped by a signal', () => {
  it('on SIGTERM lets the running prompts finish and writes them, starts no new one, exits 143, and resumes the rest', async () => {
    // The first two answers take 1.5 s: those prompts are mid-call when the signal comes.
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { ...REPLY, faults: [{ kind: 'slow', delay_ms: 1500, when: { prompt: { regex: '^task [01]$' } } }] },
    });
    const dir = tempDir('hermes-run-stop-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const run = start(endpoint.url, dir, []);
    await until(() => endpoint.requests.length >= 2);
    run.child.kill('SIGTERM');
    expect((await run.ended).code).toBe(143);
    expect(run.output.stderr).toMatch(/stopping: no new prompt starts; 2 running get 30s to finish/);
    expect(endpoint.requests.length).toBe(2);
    expect(parseJsonl(run.output.stdout)).toHaveLength(2);
    const stopped = expectRunInvariants(join(dir, 'data', 'r'));
    expect(stopped.records).toHaveLength(2);
    expect(stopped.manifest.invocations[0]).toMatchObject({ exit_code: 143, records_written: 2 });
    expectNoSecret(dir, run.output);

    const resumed = start(endpoint.url, dir, ['--resume']);
    expect((await resumed.ended).code).toBe(0);
    const written = new Set(stopped.records.map((r) => r['id']));
    expect((parseJsonl(resumed.output.stdout) as { id: string }[]).map((r) => r.id).sort()).toEqual(
      prompts
        .map((p) => p.id)
        .filter((id) => !written.has(id))
        .sort(),
    );
    expect(expectRunInvariants(join(dir, 'data', 'r')).records).toHaveLength(10);
  });

  it('stops prompts still running after --grace unwritten, brings the run directory up to date, and exits 130', async () => {
    // The first prompts' answers never come.
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { ...REPLY, faults: [{ kind: 'timeout', when: { prompt: { regex: '^task [01]$' } } }] },
    });
    const dir = tempDir('hermes-run-stop-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const run = start(endpoint.url, dir, ['--grace', '0.3']);
    await until(() => endpoint.requests.length >= 2);
    run.child.kill('SIGINT');
    expect((await run.ended).code).toBe(130);
    const stopped = expectRunInvariants(join(dir, 'data', 'r'));
    expect(stopped.records).toHaveLength(0);
    // Stopped prompts are not failures: nothing is listed, and resume runs them like any unfinished one.
    expect(stopped.failures).toEqual([]);
    expect(stopped.statistics).toMatchObject({ trajectories: 0 });
    expect(stopped.manifest.invocations[0]).toMatchObject({ exit_code: 130 });
  });

  it('exits at once on a second signal, and the run still resumes (--prompt-timeout fails the prompts that hang)', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { ...REPLY, faults: [{ kind: 'timeout', when: { prompt: { regex: '^task [01]$' } } }] },
    });
    const dir = tempDir('hermes-run-stop-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const run = start(endpoint.url, dir, []);
    await until(() => endpoint.requests.length >= 2);
    run.child.kill('SIGINT');
    await until(() => run.output.stderr.includes('stopping:'));
    run.child.kill('SIGINT');
    // Not the 30 s grace: the test's own timeout would end it first.
    expect((await run.ended).code).toBe(130);
    const manifest = JSON.parse(readFileSync(join(dir, 'data', 'r', 'run.json'), 'utf8')) as { invocations: { exit_code?: number }[] };
    expect(manifest.invocations[0]!.exit_code).toBeUndefined();

    // The budget is every prompt's: the ones that finish need it too, which on a loaded machine is seconds.
    const resumed = start(endpoint.url, dir, ['--resume', '--prompt-timeout', '5']);
    // 4: the two hanging prompts failed over their budget, which may pass on a later run.
    expect((await resumed.ended).code).toBe(4);
    const run2 = expectRunInvariants(join(dir, 'data', 'r'));
    expect(run2.records).toHaveLength(8);
    expect(run2.failures.map((f) => [f.id, f.error_class])).toEqual([
      ['t0', 'prompt-timeout'],
      ['t1', 'prompt-timeout'],
    ]);
    expect(resumed.output.stderr).toMatch(/longer than --prompt-timeout 5s/);
  });
});
