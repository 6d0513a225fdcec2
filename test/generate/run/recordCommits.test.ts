// Writing and committing records into a real run directory: the batch file first, then the
// checkpoint entry and stdout; a tombstone for a trajectory without reasoning; the key never written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gpt, human, system, trajectory } from '../../util/trajectories.js';
import { parseJsonl, tempDir } from '../../util/cli.js';
import { inRunContext, job, openTestRun, writeStages } from '../../util/runStages.js';

describe('record commits', () => {
  it("writes a prompt's sub-agents then its record as one append, then counts them, checkpoints them and sends them to stdout", async () => {
    const run = await openTestRun(tempDir());
    const result = await inRunContext(async (ctx) => {
      const { commits, tally, state, batches } = await writeStages(ctx, run);
      batches.assign(0);
      batches.intakeEnded();
      await commits.commit(job('a'), trajectory({ id: 'a' }), [trajectory({ id: 'a/d0.0' })]);
      await commits.settled();
      expect(tally).toMatchObject({ written: 2, subAgents: 1, tombstones: 0 });
      expect(state.checkpoint.get('a')).toMatchObject({ status: 'written', shard: 'batch_0.jsonl', row_hash: '0123456789abcdef' });
      expect(state.checkpoint.get('a/d0.0')).toMatchObject({ status: 'written' });
      expect(commits.exact).toBe(true);
      expect(commits.fresh.files).toEqual(new Set(['batch_0.jsonl']));
      return 0;
    });
    expect(result.code).toBe(0);
    const lines = parseJsonl(readFileSync(join(run.dir, 'batch_0.jsonl'), 'utf8')) as { id: string }[];
    expect(lines.map((line) => line.id)).toEqual(['a/d0.0', 'a']);
    expect((parseJsonl(result.stdout) as { id: string }[]).map((line) => line.id)).toEqual(['a/d0.0', 'a']);
  });

  it('writes a tombstone for a trajectory without reasoning: in the batch file, done, not on stdout', async () => {
    const run = await openTestRun(tempDir());
    const result = await inRunContext(async (ctx) => {
      const { commits, tally, state } = await writeStages(ctx, run);
      await commits.commit(job('a'), trajectory({ id: 'a', conversations: [system(), human(), gpt({ text: 'no thought' })] }), []);
      await commits.settled();
      expect(tally).toMatchObject({ written: 0, tombstones: 1 });
      expect(state.checkpoint.get('a')).toMatchObject({ status: 'discarded', reason: 'no_reasoning' });
      return 0;
    });
    expect(result.stdout).toBe('');
    const [stone] = parseJsonl(readFileSync(join(run.dir, 'batch_0.jsonl'), 'utf8'));
    expect(stone).toMatchObject({ id: 'a', discarded: 'no_reasoning', metadata: { trajectory: { id: 'a' } } });
  });

  it('redacts the key in a record, and then leaves the counting to the merge (the fresh counts are not exact)', async () => {
    const run = await openTestRun(tempDir());
    const result = await inRunContext(async (ctx) => {
      const { commits } = await writeStages(ctx, run);
      await commits.commit(job('a'), trajectory({ id: 'a', conversations: [system(), human(), gpt({ think: 'I read sk-test-secret-value', text: 'x' })] }), []);
      await commits.settled();
      expect(commits.exact).toBe(false);
      return 0;
    });
    expect(result.stdout).not.toContain('sk-test-secret-value');
    expect(readFileSync(join(run.dir, 'batch_0.jsonl'), 'utf8')).not.toContain('sk-test-secret-value');
  });
});
