// hermes-verify on a run directory that the real hermes-generate --run-name wrote against the
// scripted endpoint: duplicate prompts, a discard (tombstone), --samples 2, and a prompt that fails.
// The run's own files must pass every run check; the failed prompt is the one missing record.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedEndpoint, type ScriptedEndpoint } from '@hermes-datagen/testkit';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { statuses, verifyReport } from './helpers.js';

// Every prompt answers after one reasoned call of the todo tool, except the one that never reasons
// (discarded: a tombstone) and the one whose every request is refused with 401 (failures.jsonl).
const SCRIPT = {
  sequences: [
    { match: { contains: 'without reasoning' }, replies: [{ content: 'no thoughts' }] },
    {
      match: { regex: '.' },
      replies: [
        { reasoning: 'Track it.', tool_calls: [{ name: 'todo', arguments: { todos: [] } }] },
        { reasoning: 'Tracked.', content: 'ok' },
      ],
    },
  ],
  faults: [{ kind: 'unauthorized' as const, when: { prompt: { contains: 'refused' } } }],
};

const endpoints: ScriptedEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

describe('hermes-verify --run-dir on a hermes-generate run', () => {
  it('passes the run files; the failed prompt is missing from the count and listed in failures.jsonl', async () => {
    const endpoint = await startScriptedEndpoint({ script: SCRIPT });
    endpoints.push(endpoint);
    const prompts = [
      { prompt: 'same task' },
      { prompt: 'same task' },
      { prompt: 'answer without reasoning' },
      { prompt: 'a request that is refused' },
      { prompt: 'another task' },
    ];
    const dir = tempDir('hermes-verify-run-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const generated = await runGenerate(
      endpoint.url,
      prompts,
      ['prompts.jsonl', '--run-name', 'r', '--toolsets', 'todo', '--samples', '2', '--batch-size', '2'],
      { dir },
    );
    // The failing prompt's two samples fail (401: needs a fix), every other one is written.
    expect(generated.code, generated.stderr).toBe(1);
    const out = await verifyReport(['--run-dir', join(dir, 'data', 'r'), '--dataset', join(dir, 'prompts.jsonl'), '--samples', '2'], {
      env: { HERMES_API_KEY: TEST_API_KEY },
    });
    expect(statuses(out), out.stderr).toMatchObject({
      schema: 'PASS',
      count: 'FAIL',
      secrets: 'PASS',
      structure: 'PASS',
      unknown_tools: 'PASS',
      'run.batch_files': 'PASS',
      'run.checkpoint': 'PASS',
      'run.trajectories': 'PASS',
      'run.statistics': 'PASS',
      'run.manifest': 'PASS',
      'run.failures': 'PASS',
    });
    expect(out.check('count').numbers, out.stderr).toMatchObject({
      rows: 5,
      expected: 10,
      trajectories: 6,
      tombstones: 2,
      missing_records: 2,
      missing_prompt_indices: [3],
      duplicate_ids: 0,
      foreign_ids: 0,
    });
    expect(out.check('run.failures').numbers).toMatchObject({ unresolved: 2, stale: 0 });
    expect(out.code).toBe(1);
  });
});
