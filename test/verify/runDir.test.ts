// hermes-verify --run-dir on crafted run directories: a good run passes every check; each kind of
// damage (a missing prompt, a duplicate, a tampered statistics.json, a torn batch file, a checkpoint
// or merge that disagrees, another dataset) fails the check that owns it, with exit 1.
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/verify';
import { jsonl, runInProcess, tempDir } from '../util/cli.js';
import { recordFor, rewrite, tombstoneFor, writeRun } from './fixtures.js';
import { statuses, verifyReport } from './helpers.js';

function goodRun(): { dataset: string; run: string } {
  return writeRun(tempDir('hermes-verify-'), {
    rows: 5,
    batches: [
      [recordFor(0), recordFor(1), tombstoneFor(2)],
      [recordFor(3), recordFor(4)],
    ],
  });
}

describe('hermes-verify --run-dir', () => {
  it('passes a consistent run: every check PASS, exit 0, the merge is the stream checked', async () => {
    const { dataset, run } = goodRun();
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(statuses(out)).toEqual({
      schema: 'PASS',
      count: 'PASS',
      completed: 'PASS',
      tool_failures: 'PASS',
      tool_distribution: 'PASS',
      reasoning: 'PASS',
      unknown_tools: 'PASS',
      secrets: 'PASS',
      structure: 'PASS',
      'run.batch_files': 'PASS',
      'run.checkpoint': 'PASS',
      'run.trajectories': 'PASS',
      'run.statistics': 'PASS',
      'run.manifest': 'PASS',
      'run.failures': 'PASS',
    });
    expect(out.code).toBe(0);
    expect(out.report.records).toBe(4);
    expect(out.check('count').numbers).toMatchObject({ rows: 5, expected: 5, trajectories: 4, tombstones: 1, missing_records: 0 });
    expect(out.check('run.statistics').numbers['differing']).toBe(0);
    expect(out.stderr).toContain('PASS: 0 failed, 0 warnings, 15 passed');
  });

  it('a missing prompt: count FAILs naming its index, and failures.jsonl explains it', async () => {
    const dir = tempDir('hermes-verify-');
    const { dataset, run } = writeRun(dir, { rows: 4, batches: [[recordFor(0), recordFor(1), recordFor(3)]] });
    rewrite(
      run,
      'failures.jsonl',
      jsonl([
        {
          id: 'p2-x',
          prompt_index: 2,
          sample: 0,
          source: 'prompts.jsonl',
          line: 3,
          error_class: 'rate_limited',
          retryable: true,
          reason: '429',
          failed_at: 'now',
        },
      ]),
    );
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(out.code).toBe(1);
    expect(out.check('count')).toMatchObject({ status: 'FAIL', numbers: { missing_records: 1, missing_prompt_indices: [2] } });
    expect(out.check('count').summary).toContain('missing 1 record of prompt_index 2');
    expect(out.check('run.failures')).toMatchObject({ status: 'PASS', numbers: { unresolved: 1 } });
    expect(out.stderr).toMatch(/FAIL {2}count +3 of 4 expected/);
  });

  it('a duplicate: the same record in two batch files fails the batch files and the count', async () => {
    const { dataset, run } = writeRun(tempDir('hermes-verify-'), { rows: 2, batches: [[recordFor(0), recordFor(1)], [recordFor(1)]] });
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset, join(run, 'batch_0.jsonl'), join(run, 'batch_1.jsonl')]);
    expect(out.code).toBe(1);
    expect(out.check('run.batch_files')).toMatchObject({ status: 'FAIL', numbers: { duplicate_ids: 1 } });
    expect(out.check('run.batch_files').problems[0]).toMatch(/batch_1\.jsonl:1 .* is also in batch_0\.jsonl/);
    expect(out.check('count')).toMatchObject({ status: 'FAIL', numbers: { duplicate_ids: 1, extra_records: 1, extra_prompt_indices: [1] } });
  });

  it('a tampered statistics.json: run.statistics FAILs naming each number that differs', async () => {
    const { dataset, run } = goodRun();
    const stats = JSON.parse(readFileSync(join(run, 'statistics.json'), 'utf8')) as {
      tool_statistics: Record<string, { failure: number }>;
      reasoning_statistics: { turns_with_reasoning: number };
    };
    stats.tool_statistics['terminal']!.failure = 0 + 3;
    stats.reasoning_statistics.turns_with_reasoning -= 1;
    rewrite(run, 'statistics.json', JSON.stringify(stats));
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(out.code).toBe(1);
    const check = out.check('run.statistics');
    expect(check.status).toBe('FAIL');
    expect(check.problems).toEqual(
      expect.arrayContaining([
        'tool_statistics.terminal.failure: the file says 3, the records give 0',
        'reasoning_statistics.turns_with_reasoning: the file says 7, the records give 8',
      ]),
    );
    expect(statuses(out)).toMatchObject({ 'run.trajectories': 'PASS', 'run.checkpoint': 'PASS', count: 'PASS' });
  });

  it('a torn batch file: the cut line FAILs the batch files with its place, the rest is still checked', async () => {
    const { dataset, run } = goodRun();
    const torn = JSON.stringify(recordFor(4)).slice(0, 200);
    writeFileSync(join(run, 'batch_1.jsonl'), `${JSON.stringify(recordFor(3))}\n${torn}`);
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(out.code).toBe(1);
    const check = out.check('run.batch_files');
    expect(check).toMatchObject({ status: 'FAIL', numbers: { torn_lines: 1, files_without_final_newline: 1 } });
    expect(check.problems[0]).toMatch(/batch_1\.jsonl:2: invalid JSON in the last line, which has no newline \(the file may be truncated\)/);
    // Prompt 4's row is gone from the batch files, so the merge holds a line no batch file has.
    expect(out.check('run.trajectories')).toMatchObject({ status: 'FAIL', numbers: { not_in_batches: 1 } });
  });

  it('a checkpoint that claims a row no batch file has FAILs; rows it does not list yet only WARN', async () => {
    const { dataset, run } = goodRun();
    const checkpoint = JSON.parse(readFileSync(join(run, 'checkpoint.json'), 'utf8')) as { done: Record<string, unknown> };
    const [first] = Object.keys(checkpoint.done);
    delete checkpoint.done[first ?? ''];
    rewrite(run, 'checkpoint.json', JSON.stringify(checkpoint));
    let out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(out.check('run.checkpoint')).toMatchObject({ status: 'WARN', numbers: { rows_not_listed: 1, disagreeing: 0 } });
    expect(out.code).toBe(0);
    checkpoint.done['p9-000000000000'] = { prompt_index: 9, status: 'written' };
    rewrite(run, 'checkpoint.json', JSON.stringify(checkpoint));
    out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(out.check('run.checkpoint')).toMatchObject({ status: 'FAIL', numbers: { disagreeing: 1 } });
    expect(out.check('run.checkpoint').problems[0]).toBe('done["p9-000000000000"] (written) has no row in any batch file');
    expect(out.code).toBe(1);
  });

  it('trajectories.jsonl that lost a row, changed one and holds a tombstone FAILs the merge check', async () => {
    const { dataset, run } = goodRun();
    const lines = readFileSync(join(run, 'trajectories.jsonl'), 'utf8').split('\n').filter(Boolean);
    const changed = JSON.stringify({ ...(JSON.parse(lines[1] ?? '{}') as object), completed: false });
    rewrite(run, 'trajectories.jsonl', `${changed}\n${lines[2] ?? ''}\n${lines[3] ?? ''}\n${JSON.stringify(tombstoneFor(2))}\n`);
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(out.check('run.trajectories')).toMatchObject({ status: 'FAIL', numbers: { missing: 1, changed: 1, tombstones: 1 } });
    expect(out.code).toBe(1);
  });

  it('another dataset than the run was made from FAILs run.manifest', async () => {
    const { run } = goodRun();
    const other = join(run, '..', 'other.jsonl');
    writeFileSync(other, jsonl([{ prompt: 'something else' }, { prompt: 'b' }, { prompt: 'c' }, { prompt: 'd' }, { prompt: 'e' }]));
    const out = await verifyReport(['--run-dir', run, '--dataset', other]);
    expect(out.check('run.manifest').status).toBe('FAIL');
    expect(out.check('run.manifest').problems[0]).toMatch(/^run\.json dataset\.sha256: [0-9a-f]{64}, --dataset .*other\.jsonl has [0-9a-f]{64}$/);
    // Its ids are not those of the rows either (4 trajectories and the run's tombstone).
    expect(out.check('count')).toMatchObject({ status: 'FAIL', numbers: { foreign_ids: 5 } });
  });

  it('run files a run has not written yet are WARN, not FAIL: the stream falls back to the batch files', async () => {
    const { dataset, run } = goodRun();
    for (const name of ['trajectories.jsonl', 'statistics.json', 'run.json', 'failures.jsonl', 'checkpoint.json']) rmSync(join(run, name));
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(statuses(out)).toMatchObject({
      count: 'PASS',
      'run.checkpoint': 'WARN',
      'run.trajectories': 'WARN',
      'run.statistics': 'WARN',
      'run.manifest': 'WARN',
      'run.failures': 'WARN',
    });
    expect(out.report.records).toBe(5);
    expect(out.code).toBe(0);
  });

  it("reads upstream's run layout: no ids, a completed_prompts checkpoint, statistics without extensions", async () => {
    const dir = tempDir('hermes-verify-');
    const tombstone = { prompt_index: 2, discarded: 'no_reasoning', prompt: 'Task number 2: list the files.' };
    const { dataset, run } = writeRun(dir, { rows: 3, batches: [[recordFor(0, { id: undefined }), recordFor(1, { id: undefined }), tombstone]] });
    for (const n of [0, 1, 2]) expect(readFileSync(join(run, 'batch_0.jsonl'), 'utf8')).not.toContain(`"id":"p${n}`);
    rewrite(run, 'checkpoint.json', JSON.stringify({ run_name: 'run', completed_prompts: [0, 1, 2, 3], batch_stats: {}, last_updated: '2026-01-15T10:30:00' }));
    const stats = JSON.parse(readFileSync(join(run, 'statistics.json'), 'utf8')) as Record<string, unknown>;
    rewrite(
      run,
      'statistics.json',
      JSON.stringify({ tool_statistics: stats['tool_statistics'], reasoning_statistics: stats['reasoning_statistics'], discarded_no_reasoning: 1 }),
    );
    rmSync(join(run, 'run.json'));
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset]);
    expect(out.check('run.checkpoint')).toMatchObject({ status: 'FAIL', numbers: { completed_prompts: 4, without_row: 1 } });
    // The batch files as the stream: the tombstone (no id either) counts once, from the stream.
    const batches = await verifyReport(['--run-dir', run, '--dataset', dataset, join(run, 'batch_0.jsonl')]);
    expect(batches.check('count')).toMatchObject({ status: 'PASS', numbers: { trajectories: 2, tombstones: 1 } });
    expect(statuses(out)).toMatchObject({ count: 'PASS', 'run.trajectories': 'PASS', 'run.statistics': 'PASS', 'run.manifest': 'WARN' });
    expect(out.check('run.manifest').summary).toBe('no run.json (hermes-generate --run-name writes it)');
  });

  it('an empty run directory FAILs its batch files check, without waiting for stdin', async () => {
    const dir = tempDir('hermes-verify-');
    const out = await verifyReport(['--run-dir', dir]);
    expect(out.check('run.batch_files')).toMatchObject({ status: 'FAIL', summary: `no batch_N.jsonl files in ${dir}` });
    expect(out.report.records).toBe(0);
    expect(out.code).toBe(1);
  });

  it('a run directory that cannot be read is a usage error (exit 2)', async () => {
    const res = await runInProcess(spec, ['-q', '--run-dir', join(tempDir(), 'nope')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^hermes-verify: error: cannot read --run-dir .*nope \(ENOENT\)/);
  });

  it('appending a record to a batch file after the merge shows in the merge and the checkpoint', async () => {
    const { dataset, run } = goodRun();
    appendFileSync(join(run, 'batch_1.jsonl'), `${JSON.stringify(recordFor(4, { id: 'p4-extra' }))}\n`);
    const out = await verifyReport(['--run-dir', run, '--dataset', dataset, join(run, 'batch_0.jsonl'), join(run, 'batch_1.jsonl')]);
    expect(out.check('run.trajectories')).toMatchObject({ status: 'FAIL', numbers: { missing: 1 } });
    expect(out.check('run.checkpoint')).toMatchObject({ status: 'WARN', numbers: { rows_not_listed: 1 } });
    expect(out.check('count')).toMatchObject({ status: 'FAIL', numbers: { extra_prompt_indices: [4], foreign_ids: 1 } });
  });
});
