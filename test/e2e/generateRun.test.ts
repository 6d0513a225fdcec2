// hermes-generate --run-name: the run directory, exactly-once resume by record id, tombstones,
// failures.jsonl, the manifest and the refusals, against the scripted endpoint with the real bin.
import { appendFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants, readRun } from '../util/runDirectory.js';

const SCRIPT = {
  sequences: [
    // No reasoning at all: upstream discards it, and so does a run (a tombstone).
    { match: { contains: 'no thinking' }, replies: [{ content: 'answer without reasoning' }] },
    {
      match: { regex: '.' },
      replies: [
        { reasoning: 'Plan it.', tool_calls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'x', status: 'completed' }] } }] },
        { reasoning: 'Done.', content: 'finished' },
      ],
    },
  ],
  faults: [{ kind: 'unauthorized' as const, when: { prompt: { contains: '[fail]' } } }],
};

const PROMPTS = [
  { prompt: 'repeat me' },
  { prompt: 'repeat me' },
  { prompt: 'no thinking please' },
  { prompt: 'this one will [fail]' },
  { prompt: 'repeat me' },
  { prompt: 'unique task' },
];

/** A scratch directory holding prompts.jsonl (the dataset must be a file for run.json to hash it). */
function withDataset(prompts: readonly unknown[], dir = tempDir('hermes-run-')): string {
  writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
  return dir;
}

const RUN = ['--run-name', 'r', '--toolsets', 'todo', '--batch-size', '2', '--num-workers', '2'];

describe('hermes-generate --run-name', () => {
  it('writes every (row, sample) once, tombstones the discarded, lists the failed, and streams the records', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = withDataset(PROMPTS);
    const result = await runGenerate(endpoint.url, PROMPTS, ['prompts.jsonl', ...RUN], { dir });
    expect(result.code, result.stderr).toBe(1);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    // The three repeated prompts are three records: resume keys are ids, not prompt text (upstream #86523).
    expect(
      run.records
        .filter((r) => !('discarded' in r))
        .map((r) => r['prompt_index'])
        .sort(),
    ).toEqual([0, 1, 4, 5]);
    expect(run.records.filter((r) => 'discarded' in r)).toMatchObject([{ prompt_index: 2, discarded: 'no_reasoning', prompt: 'no thinking please' }]);
    expect(run.failures).toMatchObject([{ id: expect.stringMatching(/^p3-/), error_class: 'unauthorized', line: 4 }]);
    // stdout has the trajectories, as stream mode would.
    expect(result.records.map((r) => r.id).sort()).toEqual(run.trajectories.map((line) => (JSON.parse(line) as { id: string }).id).sort());
    expect(run.statistics).toMatchObject({ run_name: 'r', total_prompts: 6, batch_size: 2, trajectories: 4, discarded_no_reasoning: 1 });
    expect(run.manifest).toMatchObject({ run_name: 'r', dataset: { paths: ['prompts.jsonl'] }, endpoint: { model: 'test-model' } });
    expect(run.records.every((r) => (r['metadata'] as { row_hash?: string }).row_hash?.length === 16)).toBe(true);
  });

  it('on --resume runs only the failed and the unfinished, and numbers new batch files after the old ones', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = withDataset(PROMPTS);
    await runGenerate(endpoint.url, PROMPTS, ['prompts.jsonl', ...RUN], { dir });
    const runDir = join(dir, 'data', 'r');
    const before = readRun(runDir);
    const oldBytes = before.batchFiles.map((name) => readFileSync(join(runDir, name)));
    // A kill mid-write left half a record at the end of the last file.
    appendFileSync(join(runDir, before.batchFiles.at(-1)!), '{"id":"p9-half","conversations":[');
    const requests = endpoint.requests.length;

    const again = await runGenerate(endpoint.url, PROMPTS, ['prompts.jsonl', ...RUN, '--resume'], { dir });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toMatch(/its last line was cut off \(33 bytes/);
    // Only the failing prompt was sent again (401 is not retried).
    expect(endpoint.requests.length - requests).toBe(1);
    const after = expectRunInvariants(runDir);
    expect(after.batchFiles.slice(0, before.batchFiles.length)).toEqual(before.batchFiles);
    expect(before.batchFiles.map((name) => readFileSync(join(runDir, name)))).toEqual(oldBytes);
    expect(after.records).toHaveLength(before.records.length);
    expect(after.failures).toHaveLength(1);
    expect(after.manifest.invocations).toHaveLength(2);
    expect(after.manifest.invocations[1]).toMatchObject({ resumed: true, records_written: 0, prompts_failed: 1 });
  });

  it('adds samples on --resume --samples 3 and keeps the first ones', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const prompts = [
      { prompt: 'a', id: 'a' },
      { prompt: 'b', id: 'b' },
    ];
    const dir = withDataset(prompts);
    await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN], { dir });
    const more = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN, '--resume', '--samples', '3'], { dir });
    expect(more.code, more.stderr).toBe(0);
    expect(more.records.map((r) => r.id).sort()).toEqual(['a#s1', 'a#s2', 'b#s1', 'b#s2']);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    expect(Object.fromEntries(run.records.map((r) => [r['id'], (r['metadata'] as { sample: number }).sample]))).toEqual({
      a: 0,
      'a#s1': 1,
      'a#s2': 2,
      b: 0,
      'b#s1': 1,
      'b#s2': 2,
    });
  });

  it('refuses the same run name without --resume, and a resume with another key, with exit 2', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const prompts = [{ prompt: 'a' }];
    const dir = withDataset(prompts);
    await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN], { dir });
    const again = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN], { dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists already: add --resume/);
    const other = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN, '--resume'], { dir, env: { HERMES_API_KEY: 'sk-another-key-0000' } });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/--resume refused: .*the API key \(fingerprint [0-9a-f]{8}, not [0-9a-f]{8}\)/);
    expect(readRun(join(dir, 'data', 'r')).manifest.invocations).toHaveLength(1);
  });

  it('resumes a finished run without rebuilding its outputs, shows progress and the end report on stderr', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const prompts = [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }];
    const dir = withDataset(prompts);
    const first = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN, '--progress'], { dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/prompts done, \d+ running, \d+ in flight of \d+ allowed, 0 429s\/min/);
    expect(first.stderr).toContain('📈 Tool Usage Statistics:');
    expect(first.stderr).toMatch(/todo +3 +3 +0 +100\.0%/);
    const merged = join(dir, 'data', 'r', 'trajectories.jsonl');
    const built = statSync(merged).mtimeMs;
    const again = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN, '--resume'], { dir });
    expect(again.code, again.stderr).toBe(0);
    expect(statSync(merged).mtimeMs).toBe(built);
    expect(again.stderr).toContain('✅ Trajectories: 3');
    expect(again.stderr).toMatch(/nothing to run, the rows are not read again/);
    expect(again.stderr).toMatch(/0 trajectories .* written, 3 already done/);
    expectRunInvariants(join(dir, 'data', 'r'));
  });

  it('marks a run complete only when every (row, sample) is done, and reads the rows again when the selection or a batch file changed', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = withDataset(PROMPTS);
    const checkpointOf = (): { complete?: unknown } => JSON.parse(readFileSync(join(dir, 'data', 'r', 'checkpoint.json'), 'utf8'));
    // A failed prompt: not complete, and the resume reads the rows to run it again.
    const first = await runGenerate(endpoint.url, PROMPTS, ['prompts.jsonl', ...RUN], { dir });
    expect(first.code).not.toBe(0);
    expect(checkpointOf().complete).toBeUndefined();
    const failedAgain = await runGenerate(endpoint.url, PROMPTS, ['prompts.jsonl', ...RUN, '--resume'], { dir });
    expect(failedAgain.stderr).not.toMatch(/nothing to run/);
    expect(checkpointOf().complete).toBeUndefined();

    const prompts = [
      { prompt: 'a', id: 'a' },
      { prompt: 'b', id: 'b' },
      { prompt: 'c', id: 'c' },
    ];
    const clean = withDataset(prompts);
    const runDir = join(clean, 'data', 'r');
    const done = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN], { dir: clean });
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(runDir, 'checkpoint.json'), 'utf8')).complete).toMatchObject({
      samples: 1,
      max_samples: null,
      shard: null,
      records: 3,
    });
    // Another selection: the rows are read, and only the new pairs run.
    const more = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN, '--resume', '--samples', '2'], { dir: clean });
    expect(more.code, more.stderr).toBe(0);
    expect(more.stderr).not.toMatch(/nothing to run/);
    expect(more.records.map((r) => r.id).sort()).toEqual(['a#s1', 'b#s1', 'c#s1']);
    expect(JSON.parse(readFileSync(join(runDir, 'checkpoint.json'), 'utf8')).complete).toMatchObject({ samples: 2, records: 6 });
    // A batch file gone: the checkpoint no longer accounts for the files, and its prompts run again.
    const { batchFiles } = readRun(runDir);
    rmSync(join(runDir, batchFiles[0]!));
    const repaired = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN, '--resume', '--samples', '2'], { dir: clean });
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stderr).not.toMatch(/nothing to run/);
    expect(repaired.records.length).toBeGreaterThan(0);
    const run = expectRunInvariants(runDir);
    expect(run.records.map((r) => r['id']).sort()).toEqual(['a', 'a#s1', 'b', 'b#s1', 'c', 'c#s1']);
  });

  it('takes a repeated row id for a bad line, as stream mode does: two prompts under one id would be one record', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const prompts = [
      { prompt: 'a', id: 'same' },
      { prompt: 'b', id: 'other' },
      { prompt: 'c', id: 'same' },
    ];
    const dir = withDataset(prompts);
    const failed = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN], { dir });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/prompts\.jsonl:3.*duplicate id "same": prompts\.jsonl:1 has the same id/);
    const skipped = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', ...RUN, '--resume', '--on-error', 'skip'], { dir });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(
      expectRunInvariants(join(dir, 'data', 'r'))
        .records.map((r) => r['id'])
        .sort(),
    ).toEqual(['other', 'same']);
  });

  it('takes upstream batch_runner spellings unchanged: --run_name, --batch_size, --num_workers, --max_samples, --reasoning_effort', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const prompts = Array.from({ length: 5 }, (_, i) => ({ prompt: `task ${i}` }));
    const dir = withDataset(prompts);
    const result = await runGenerate(
      endpoint.url,
      prompts,
      [
        'prompts.jsonl',
        '--run_name',
        'up',
        '--batch_size',
        '1',
        '--num_workers',
        '2',
        '--max_samples',
        '2',
        '--reasoning_effort',
        'high',
        '--toolsets',
        'todo',
      ],
      { dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const run = expectRunInvariants(join(dir, 'data', 'up'));
    expect(run.records.map((r) => r['prompt_index']).sort()).toEqual([0, 1]);
    // One prompt a batch file.
    expect(run.batchFiles).toHaveLength(2);
    expect(run.statistics).toMatchObject({ batch_size: 1, total_prompts: 2 });
    expect(endpoint.requests.every((request) => (request.body as { reasoning_effort?: string }).reasoning_effort === 'high')).toBe(true);
  });

  it('refuses run-mode flags without --run-name rather than ignore them', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const result = await runGenerate(endpoint.url, [{ prompt: 'a' }], ['--rpm', '60', '--shard', '0/2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--shard, --rpm work with --run-name only/);
    expect(endpoint.requests).toHaveLength(0);
  });
});
