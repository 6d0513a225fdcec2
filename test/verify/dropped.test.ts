// --dropped FILE: rows a stage before hermes-verify dropped on purpose are accounted for by file and
// reason; only missing, extra and duplicated rows fail the count check.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spec as filterSpec } from '@hermes-datagen/filter';
import { jsonl, runInProcess, tempDir } from '../util/cli.js';
import { gpt, human, system, tool } from '../util/trajectories.js';
import { recordFor, rowsOf, tombstoneFor } from './fixtures.js';
import { verifyReport } from './helpers.js';

function files(contents: Record<string, string>): Record<string, string> {
  const dir = tempDir('hermes-verify-dropped-');
  return Object.fromEntries(
    Object.entries(contents).map(([name, text]) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return [name, path];
    }),
  );
}

/** A record as hermes-filter writes it to --rejects: the record, then "reason" and "detail". */
const filterDrop = (index: number, reason: string) => ({ ...recordFor(index), reason, detail: `rule ${reason}` });

/** A line of hermes-generate's --rejects or failures.jsonl (schemas/failure). */
const failure = (index: number, errorClass: string) => ({
  id: recordFor(index).id,
  prompt_index: index,
  source: 'prompts.jsonl',
  line: index + 1,
  error_class: errorClass,
  retryable: true,
  reason: 'the endpoint said 429',
  failed_at: '2026-12-01T00:00:00Z',
});

/** Record 3's turns without any reasoning: hermes-filter's default rule drops it. */
const noReasoning = [
  system(['terminal', 'read_file']),
  human('Task number 3: list the files.'),
  gpt({ calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
  tool({ name: 'terminal', content: { output: 'a.txt', exit_code: 0, error: null } }),
  gpt({ text: 'There is a.txt.' }),
];

describe('hermes-verify --dropped', () => {
  it('rows dropped by hermes-filter, failed in hermes-generate or discarded are accounted for by file and reason', async () => {
    const f = files({
      'prompts.jsonl': jsonl(rowsOf(6)),
      'rejected.jsonl': jsonl([filterDrop(2, 'no_reasoning'), filterDrop(3, 'hallucinated_tools'), filterDrop(4, 'no_reasoning')]),
      'failures.jsonl': jsonl([failure(5, 'rate-limited')]),
    });
    const input = jsonl([recordFor(0), tombstoneFor(1)]);
    const without = await verifyReport(['--dataset', f['prompts.jsonl'] as string], { input });
    expect(without.check('count')).toMatchObject({ status: 'FAIL', numbers: { missing_prompt_indices: [2, 3, 4, 5] } });

    const out = await verifyReport(
      ['--dataset', f['prompts.jsonl'] as string, '--dropped', f['rejected.jsonl'] as string, '--dropped', f['failures.jsonl'] as string],
      { input },
    );
    expect(out.code).toBe(0);
    expect(out.check('count')).toMatchObject({
      status: 'PASS',
      numbers: {
        trajectories: 1,
        tombstones: 1,
        dropped: 4,
        dropped_by_file: {
          [f['rejected.jsonl'] as string]: { no_reasoning: 2, hallucinated_tools: 1 },
          [f['failures.jsonl'] as string]: { 'failed: rate-limited': 1 },
        },
        missing_records: 0,
      },
    });
    expect(out.check('count').summary).toBe(
      `6 of 6 expected (6 rows x 1 samples, rows from --dataset ${f['prompts.jsonl']}): 2 present (1 trajectories, 1 discarded), 4 dropped ` +
        `(${f['rejected.jsonl']}: no_reasoning 2, hallucinated_tools 1; ${f['failures.jsonl']}: failed: rate-limited 1), 0 missing`,
    );
  });

  it('still FAILs on a row neither present nor dropped, and on a row both present and dropped', async () => {
    const f = files({ 'prompts.jsonl': jsonl(rowsOf(3)), 'rejected.jsonl': jsonl([filterDrop(1, 'no_reasoning'), filterDrop(0, 'no_reasoning')]) });
    const out = await verifyReport(['--dataset', f['prompts.jsonl'] as string, '--dropped', f['rejected.jsonl'] as string], { input: jsonl([recordFor(0)]) });
    expect(out.code).toBe(1);
    expect(out.check('count')).toMatchObject({
      status: 'FAIL',
      numbers: { missing_prompt_indices: [2], extra_prompt_indices: [0], duplicate_ids: 1, dropped: 2 },
    });
    expect(out.check('count').summary).toContain('1 present (1 trajectories, 0 discarded), 2 dropped');
    expect(out.check('count').summary).toContain('1 missing');
    expect(out.check('count').problems).toEqual([
      expect.stringMatching(/^.*rejected\.jsonl:2 id "p0-[0-9a-f]{12}" \(dropped: no_reasoning\) appeared before$/),
    ]);
  });

  it('a tombstone counts as discarded; a skipped line counts when its raw text is a record, else only as unkeyed', async () => {
    const f = files({
      'prompts.jsonl': jsonl(rowsOf(3)),
      'dropped.jsonl': jsonl([
        tombstoneFor(0),
        { line: 7, source: 'stats.jsonl', reason: 'too long to compress', raw: JSON.stringify(recordFor(1)) },
        { line: 8, source: 'stats.jsonl', reason: 'invalid JSON', raw: '{"prompt_index": 2, "conv' },
      ]),
    });
    const out = await verifyReport(['--dataset', f['prompts.jsonl'] as string, '--dropped', f['dropped.jsonl'] as string], { input: '' });
    expect(out.check('count')).toMatchObject({
      status: 'FAIL',
      numbers: {
        dropped: 2,
        dropped_unkeyed: 1,
        missing_prompt_indices: [2],
        dropped_by_file: { [f['dropped.jsonl'] as string]: { 'discarded: no_reasoning': 1, rejected: 1 } },
      },
    });
    expect(out.check('count').summary).toContain('1 line of --dropped files name no prompt_index (not counted)');
  });

  it('reads the --rejects file hermes-filter really writes, and a FILES operand after --dropped stays an input', async () => {
    const dir = tempDir('hermes-verify-dropped-');
    const rejects = join(dir, 'rejected.jsonl');
    const dataset = join(dir, 'prompts.jsonl');
    writeFileSync(dataset, jsonl(rowsOf(4)));
    const generated = jsonl([recordFor(0), recordFor(1), recordFor(2), recordFor(3, {}, noReasoning)]);
    const filtered = await runInProcess(filterSpec, ['--rejects', rejects], { input: generated });
    expect(filtered.code).toBe(0);
    const kept = join(dir, 'kept.jsonl');
    writeFileSync(kept, filtered.stdout);
    const out = await verifyReport(['--dataset', dataset, '--dropped', rejects, kept]);
    expect(out.report.records).toBe(3);
    expect(out.check('count')).toMatchObject({
      status: 'PASS',
      numbers: { trajectories: 3, dropped: 1, dropped_by_file: { [rejects]: { zero_reasoning: 1 } } },
    });
  });
});
