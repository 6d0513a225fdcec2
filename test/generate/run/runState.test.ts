// What an invocation starts from: earlier failures, the checkpoint restored, and whether its selection was done in full before.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunState } from '@hermes-datagen/generate/internal/run/runState.js';
import { tempDir, writeFiles } from '../../util/cli.js';
import { openTestRun } from '../../util/runStages.js';

const SHA = 'c'.repeat(64);

describe('the run state', () => {
  it('has no selection for a dataset read from stdin (nothing hashed), so nothing counts as done in full', async () => {
    const run = await openTestRun(tempDir());
    const state = await openRunState(run, 'run1', { samples: 2 }, 1000);
    expect(state.selection).toBeUndefined();
    expect(state.doneBefore).toBeUndefined();
    expect(state.datasetFacts).toEqual({ path: '-', valid_rows: 0 });
  });

  it('names the selection of a hashed dataset, and finds it done before only when the checkpoint marked that same selection complete', async () => {
    const root = tempDir();
    const first = await openTestRun(root, false, SHA);
    const state = await openRunState(first, 'run1', { samples: 2, maxSamples: 5, shard: { index: 1, count: 3 } }, 1000);
    expect(state.selection).toEqual({ sha256: SHA, samples: 2, max_samples: 5, shard: '1/3' });
    state.checkpoint.markComplete({ ...state.selection!, records: 4 });
    await state.checkpoint.write();

    const again = await openRunState(await openTestRun(root, true, SHA), 'run1', { samples: 2, maxSamples: 5, shard: { index: 1, count: 3 } }, 1000);
    expect(again.doneBefore).toMatchObject({ records: 4 });
    const moreSamples = await openRunState(await openTestRun(root, true, SHA), 'run1', { samples: 3, maxSamples: 5, shard: { index: 1, count: 3 } }, 1000);
    expect(moreSamples.doneBefore).toBeUndefined();
  });

  it('loads the failures of earlier invocations', async () => {
    const root = tempDir();
    const run = await openTestRun(root);
    writeFiles(join(root, 'run1'), { 'failures.jsonl': `${JSON.stringify({ id: 'p1', prompt_index: 0 })}\n{"id":"torn` });
    const state = await openRunState(run, 'run1', { samples: 1 }, 1000);
    expect(state.failures.has('p1')).toBe(true);
  });
});
