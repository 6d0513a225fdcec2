// Finishing an invocation on a real run directory: run.json says how it ended, the outputs are merged, failures settled.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '@hermes-datagen/generate/internal/run/manifest.js';
import { finishRun, runDuration } from '@hermes-datagen/generate/internal/run/runFinish.js';
import { tempDir } from '../../util/cli.js';
import { trajectory } from '../../util/trajectories.js';
import { inRunContext, job, openTestRun, writeStages } from '../../util/runStages.js';

const facts = { runName: 'run1', distribution: 'default', model: 'm', batchSize: 2, started: Date.now(), selectionRead: true };

describe('finishing a run', () => {
  it("records the invocation's end in run.json, merges trajectories.jsonl and statistics.json, and says what it did", async () => {
    const run = await openTestRun(tempDir());
    const result = await inRunContext(async (ctx) => {
      const stages = await writeStages(ctx, run);
      await stages.commits.commit(job('a'), trajectory({ id: 'a' }), []);
      await stages.commits.settled();
      await stages.batches.closeAll();
      await finishRun(ctx, run, stages.state, stages.tally, stages.commits, { ...facts, exitCode: 0 });
      return 0;
    });
    expect(result.stderr).toMatch(/1 trajectories \(0 of them by sub-agents\) and 0 tombstones written, 0 already done; the run now has 1 trajectories/);
    const manifest = JSON.parse(readFileSync(join(run.dir, 'run.json'), 'utf8')) as Manifest;
    expect(manifest.invocations.at(-1)).toMatchObject({ exit_code: 0, records_written: 1, tombstones_written: 0, prompts_failed: 0 });
    expect(readFileSync(join(run.dir, 'trajectories.jsonl'), 'utf8')).toContain('"id":"a"');
    expect(existsSync(join(run.dir, 'statistics.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(run.dir, 'checkpoint.json'), 'utf8'))).toMatchObject({ done: { a: { status: 'written' } } });
  });

  it('keeps in failures.jsonl only the prompts still without a record', async () => {
    const run = await openTestRun(tempDir());
    await inRunContext(async (ctx) => {
      const stages = await writeStages(ctx, run);
      const failure = { id: 'a', prompt_index: 0, line: 1, source: '<stdin>', error_class: 'timeout', retryable: true, reason: 'slow' };
      await stages.state.failures.add(failure as never);
      await stages.state.failures.add({ ...failure, id: 'b', prompt_index: 1 } as never);
      await stages.commits.commit(job('a'), trajectory({ id: 'a' }), []);
      await stages.commits.settled();
      await finishRun(ctx, run, stages.state, stages.tally, stages.commits, { ...facts, exitCode: 4 });
      return 0;
    });
    const lines = readFileSync(join(run.dir, 'failures.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['b']);
  });

  it('counts the seconds of every ended invocation and this one', () => {
    const ended = { started_at: '2026-01-01T00:00:00Z', ended_at: '2026-01-01T00:00:10Z' };
    const current = { started_at: '2026-01-01T01:00:00Z' };
    const killed = { started_at: '2026-01-01T00:30:00Z' };
    expect(runDuration([ended, killed, current], current, 1_000, 6_000)).toBe(15);
  });
});
