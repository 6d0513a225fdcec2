// Intake of pending work, read from a real stdin through a real RunContext.
import { describe, expect, it } from 'vitest';
import type { RunContext } from '@hermes-datagen/core';
import { RunBatches } from '@hermes-datagen/generate/internal/run/runBatches.js';
import { RunIntake, type Job } from '@hermes-datagen/generate/internal/run/runIntake.js';
import { openRunState, type Selection } from '@hermes-datagen/generate/internal/run/runState.js';
import { RunTally } from '@hermes-datagen/generate/internal/run/runTally.js';
import { jsonl, tempDir } from '../../util/cli.js';
import { inRunContext, openTestRun } from '../../util/runStages.js';

interface Taken {
  jobs: Job[];
  tally: RunTally;
  selectionRead: boolean;
  readBeforeFailure?: number;
  error?: unknown;
}

/** Every job intake yields for `input`, with row `done` (and its hash `doneHash`) done before. */
async function intake(input: string, selected: Selection, done?: { id: string; hash: string }): Promise<Taken & { stderr: string }> {
  const run = await openTestRun(tempDir());
  const taken: Partial<Taken> = {};
  const { stderr } = await inRunContext(
    async (ctx: RunContext) => {
      const state = await openRunState(run, 'run1', selected, 1000);
      if (done) state.checkpoint.add([[done.id, { prompt_index: 0, status: 'written', shard: 'batch_0.jsonl', row_hash: done.hash }]], 'batch_0.jsonl', 10);
      const tally = new RunTally();
      const reader = new RunIntake(ctx, state, selected, new RunBatches(run.dir, 0, 2), tally, 0);
      const jobs: Job[] = [];
      try {
        for await (const job of reader.jobs((read) => (taken.readBeforeFailure = read))) jobs.push(job);
      } catch (error) {
        taken.error = error;
      }
      Object.assign(taken, { jobs, tally, selectionRead: reader.selectionRead });
      return 0;
    },
    { input },
    ['--on-error', 'fail'],
  );
  return { ...(taken as Taken), stderr };
}

describe('run intake', () => {
  it('yields each (row, sample) with its record id, row hash and batch, batch_size jobs a batch', async () => {
    const { jobs, tally, selectionRead } = await intake(
      jsonl([
        { id: 'a', prompt: 'one' },
        { id: 'b', prompt: 'two' },
      ]),
      { samples: 2 },
    );
    expect(jobs.map((job) => [job.id, job.sample, job.batch])).toEqual([
      ['a', 0, 0],
      ['a#s1', 1, 0],
      ['b', 0, 1],
      ['b#s1', 1, 1],
    ]);
    expect(jobs[0]!.rowHash).toMatch(/^[0-9a-f]{16}$/);
    expect(jobs[0]!.rowHash).not.toBe(jobs[2]!.rowHash);
    expect(jobs[0]!.raw).toBe('{"id":"a","prompt":"one"}');
    expect(tally.records).toBe(4);
    expect(selectionRead).toBe(true);
  });

  it('skips what is done, and warns when the row of a done record changed', async () => {
    const { jobs, tally, stderr } = await intake(
      jsonl([
        { id: 'a', prompt: 'edited' },
        { id: 'b', prompt: 'two' },
      ]),
      { samples: 1 },
      { id: 'a', hash: '0'.repeat(16) },
    );
    expect(jobs.map((job) => job.id)).toEqual(['b']);
    expect(tally.skipped).toBe(1);
    expect(stderr).toMatch(/the row of record a changed since the record was written/);
  });

  it('stops at --max-samples rows, the selection read in full', async () => {
    const { jobs, selectionRead } = await intake(jsonl([{ prompt: 'one' }, { prompt: 'two' }, { prompt: 'three' }]), { samples: 1, maxSamples: 2 });
    expect(jobs).toHaveLength(2);
    expect(selectionRead).toBe(true);
  });

  it('at a bad line under --on-error fail: the jobs before it, the prompts read told, then the error', async () => {
    const { jobs, selectionRead, error, readBeforeFailure } = await intake(`${jsonl([{ prompt: 'one' }])}{broken\n`, { samples: 1 });
    expect(jobs).toHaveLength(1);
    expect(readBeforeFailure).toBe(1);
    expect(error).toMatchObject({ exitCode: 3, place: { line: 2 } });
    expect(selectionRead).toBe(false);
  });
});
