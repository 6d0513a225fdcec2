// A bad line under --on-error fail stops hermes-generate with exit 3, and nothing read before it is
// lost: the prompts in flight when the bad line is read finish and are written (or listed as
// failures) first, in stream mode and in run mode. 100 good lines then `{broken`, at 4 at once,
// replies 50 ms late so that the bad line is read while prompts run.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, writeFiles, tempDir } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';

const GOOD = Array.from({ length: 100 }, (_, i) => ({ id: `p${i}`, prompt: `task ${i}` }));
const INPUT = `${jsonl(GOOD)}{broken\n`;
const SCRIPT = { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Done.', content: 'finished' }] }] };

describe('hermes-generate at a bad line under --on-error fail', () => {
  it('stream mode: every prompt read before it has its record, then exit 3 naming the line', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT, latencyMs: 50 });
    const result = await runGenerate(endpoint.url, INPUT, ['-c', '4', '--on-error', 'fail']);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/<stdin>:101/);
    expect(result.stderr).toMatch(/the input stopped after 100 prompts: no new prompt starts; the \d+ running prompts? gets? \d+s \(--grace\) to finish/);
    expect(result.records.map((record) => record.id).sort()).toEqual(GOOD.map((row) => row.id).sort());
  });

  it('run mode: the prompts in flight are written to the run before exit 3, and run.json records the 3', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT, latencyMs: 50 });
    const dir = tempDir('hermes-badline-');
    writeFiles(dir, { 'prompts.jsonl': INPUT });
    const result = await runGenerate(endpoint.url, INPUT, ['prompts.jsonl', '--run-name', 'r', '--max-concurrency', '4', '--on-error', 'fail'], { dir });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/prompts\.jsonl:101/);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    expect(run.records.map((record) => record['id']).sort()).toEqual(GOOD.map((row) => row.id).sort());
    expect(run.failures).toEqual([]);
    expect(run.manifest.invocations.at(-1)).toMatchObject({ exit_code: 3, records_written: 100 });
  });

  it('run mode: a prompt still running --grace seconds after the bad line is a failure (input-stopped), and --resume runs it', async () => {
    const rows = [
      { id: 'fast', prompt: 'quick' },
      { id: 'held', prompt: 'the [slow] one' },
    ];
    const script = { ...SCRIPT, faults: [{ kind: 'slow' as const, delay_ms: 600_000, when: { prompt: { contains: '[slow]' } } }] };
    let endpoint = await scriptedEndpoint({ script });
    const dir = tempDir('hermes-badline-');
    writeFiles(dir, { 'prompts.jsonl': `${jsonl(rows)}{broken\n` });
    const args = ['prompts.jsonl', '--run-name', 'r', '--resume', '--on-error', 'fail', '--grace', '0'];
    const first = await runGenerate(endpoint.url, '', args, { dir });
    expect(first.code, first.stderr).toBe(3);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    // Each row read is a record or a failure with its reason; the held one, a failure surely.
    expect(run.failures).toContainEqual(expect.objectContaining({ id: 'held', error_class: 'input-stopped', line: 2 }));
    const accounted = [...run.records.map((record) => record['id']), ...run.failures.map((failure) => failure.id)];
    expect(accounted.sort()).toEqual(['fast', 'held']);
    for (const failure of run.failures)
      expect(failure).toMatchObject({ error_class: 'input-stopped', reason: expect.stringMatching(/after the input stopped at a bad line/) });
    // The bad line fixed (a new dataset for the run, knowingly), the failed prompt runs again.
    const port = Number(new URL(endpoint.url).port);
    await endpoint.close();
    endpoint = await scriptedEndpoint({ script: SCRIPT, port });
    writeFiles(dir, { 'prompts.jsonl': jsonl(rows) });
    const again = await runGenerate(endpoint.url, '', [...args, '--force-resume'], { dir });
    expect(again.code, again.stderr).toBe(0);
    const done = expectRunInvariants(join(dir, 'data', 'r'));
    expect(done.records.map((record) => record['id']).sort()).toEqual(['fast', 'held']);
    expect(done.failures).toEqual([]);
  });
});
