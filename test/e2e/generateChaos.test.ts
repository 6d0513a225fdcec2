// The chaos test of run mode: a 200-prompt run (repeated prompts, one that is discarded, one that
// always fails) is killed with SIGKILL at random moments, at least ten times, and resumed each
// time; at the end there is exactly one record per (row, sample) and every invariant of a run
// directory holds. The endpoint answers at once, so kills land while records are being written.
// Every invocation runs under `ulimit -n 128` (below what its concurrency asks: it must fit itself
// to it), and every other one meets a twin: the same command started once it holds the run (paused
// meanwhile), which must be refused (exit 2, naming it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptId } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { expectNoSecret, startGenerate, TEST_MODEL, type EndedGenerate, type StartedGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';

const KILLS = 12;

type Invocation = EndedGenerate;

const MAX_OPEN_FILES = 128;

/** One process of hermes-generate on the chaos run, under the fd limit. */
function startChaos(url: string, dir: string, killWhen?: () => boolean): StartedGenerate {
  return startGenerate(
    dir,
    [
      'prompts.jsonl',
      ...['--base-url', url, '--model', TEST_MODEL, '--run-name', 'chaos', '--resume', '--toolsets', 'todo'],
      ...['--batch-size', '5', '--num-workers', '4', '--workspace-root', join(dir, 'workspaces')],
    ],
    { maxOpenFiles: MAX_OPEN_FILES, killWhen },
  );
}

/**
 * Runs one invocation; with killAtLines, SIGKILLs it once the batch files hold that many lines. With
 * `twin`, the same command is started as soon as the invocation holds the run, and the kill waits
 * for the twin to have ended.
 */
async function invoke(url: string, dir: string, killAtLines?: number, twin = false): Promise<Invocation & { twin?: Invocation }> {
  let twinEnded: Promise<Invocation> | undefined;
  let twinDone = !twin;
  // The kill is set by the run's progress, not by a clock: once this invocation has started its run
  // (its entry is in run.json) and the batch files reach the chosen count. A timer would land before
  // or after the run on a machine whose speed varies tenfold with its load.
  const before = invocations(dir);
  const watch = (): boolean => {
    if (invocations(dir) === before) return false;
    if (twin && twinEnded === undefined) {
      // Paused while its twin tries: the twin meets it holding the run however fast it runs, and
      // the pause costs the run no progress (the kill points stay where they were drawn).
      started.child.kill('SIGSTOP');
      twinEnded = startChaos(url, dir).ended;
      void twinEnded.then(() => {
        started.child.kill('SIGCONT');
        twinDone = true;
      });
    }
    return killAtLines !== undefined && twinDone && batchLines(dir) >= killAtLines;
  };
  const started = startChaos(url, dir, killAtLines === undefined && !twin ? undefined : watch);
  const result = await started.ended;
  return { ...result, ...(twinEnded === undefined ? {} : { twin: await twinEnded }) };
}

/** Invocations in the run's manifest so far (0 before the first). */
function invocations(dir: string): number {
  try {
    return (JSON.parse(readFileSync(join(dir, 'data', 'chaos', 'run.json'), 'utf8')) as { invocations: unknown[] }).invocations.length;
  } catch {
    return 0;
  }
}

/** Lines in the run's batch files now. */
function batchLines(dir: string): number {
  const runDir = join(dir, 'data', 'chaos');
  if (!existsSync(runDir)) return 0;
  return readdirSync(runDir)
    .filter((name) => name.startsWith('batch_'))
    .reduce((sum, name) => sum + completeLines(readFileSync(join(runDir, name), 'utf8')).length, 0);
}

/** The lines of a stream that a kill may have cut: the last one counts only with its newline. */
function completeLines(text: string): string[] {
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '');
}

describe('hermes-generate run mode under SIGKILL', () => {
  it(`ends with one record per (row, sample) after ${KILLS} kills at random moments and resumes`, async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: {
        sequences: [
          { match: { contains: 'no thinking' }, replies: [{ content: 'an answer without reasoning' }] },
          {
            match: { regex: '.' },
            replies: [
              { reasoning: 'Plan.', tool_calls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'step', status: 'completed' }] } }] },
              { reasoning: 'Done.', content: 'finished' },
            ],
          },
        ],
        faults: [{ kind: 'unauthorized', when: { prompt: { contains: '[fail]' } } }],
      },
    });
    const dir = tempDir('hermes-chaos-');
    // 150 distinct tasks and 50 repeats of the first ones, a prompt without reasoning, a failing one.
    const prompts = Array.from({ length: 200 }, (_, i) => ({ prompt: `task ${i % 150}` }));
    prompts[17] = { prompt: 'no thinking here' };
    prompts[123] = { prompt: 'this one will [fail]' };
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });

    // Lines of the finished run: one per row but the failing one.
    const records = prompts.length - 1;
    const killPoints: number[] = [];
    const killed: Invocation[] = [];
    const progress: number[] = [];
    const twins: Invocation[] = [];
    // Kills at random points of the run: the first as soon as the run starts, the others each a random
    // 1-25 records further on. A kill lands later than asked on a loaded machine (the run writes on until
    // the poll sees its lines), so the run may end before twelve did: a point past the end is the end,
    // and the next invocation is killed as soon as it has started on the finished run.
    while (killed.length < KILLS) {
      const at = killed.length === 0 ? 0 : Math.min(records, batchLines(dir) + 1 + Math.floor(Math.random() * 25));
      killPoints.push(at);
      const result = await invoke(endpoint.url, dir, at, killed.length % 2 === 1);
      expect(result.stderr, `a kill at ${at} records`).not.toMatch(/internal error|EMFILE/);
      // The fd limit is below what 4 x 5 prompts ask: the concurrency is fitted to it.
      expect(result.stderr).toMatch(/20 prompts at once need about \d+ open files and this process may open 128/);
      if (result.twin !== undefined) {
        twins.push(result.twin);
        expect(result.twin.code, result.twin.stderr).toBe(2);
        expect(result.twin.stderr).toMatch(new RegExp(`is in use by another invocation \\(pid ${result.pid} on `));
        expect(result.twin.stdout).toBe('');
      }
      if (result.signal === 'SIGKILL') {
        killed.push(result);
        progress.push(batchLines(dir));
      } else expect(result.code, result.stderr).toBe(1);
      expectNoSecret(dir, result);
    }
    const final = await invoke(endpoint.url, dir);
    // 1: the failing prompt needs a fix (401), everything else is done.
    expect(final.code, `${final.stderr}\nkills at records: ${killPoints.join(', ')}`).toBe(1);
    expectNoSecret(dir, final);

    const run = expectRunInvariants(join(dir, 'data', 'chaos'));
    const expected = prompts.map((row, index) => promptId(row, index));
    const failing = expected[123]!;
    const ids = run.records.map((record) => record['id'] as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(expected.filter((id) => id !== failing).sort());
    expect(run.records.filter((record) => 'discarded' in record).map((record) => record['id'])).toEqual([expected[17]]);
    expect(run.failures.map((failure) => failure.id)).toEqual([failing]);
    expect(run.failures[0]).toMatchObject({ line: 124 });
    expect(run.statistics).toMatchObject({ total_prompts: 200, trajectories: 198, discarded_no_reasoning: 1 });
    expect(run.manifest.invocations.length).toBeGreaterThanOrEqual(KILLS + 1);
    // The kills landed mid-run, not only before or after it.
    expect(progress.filter((n) => n > 0 && n < records).length, `records after each kill: ${progress.join(', ')}`).toBeGreaterThanOrEqual(3);
    // Downstream saw each record at most once over all invocations, and only records that are on disk.
    expect(twins.length).toBeGreaterThanOrEqual(KILLS / 2);
    const streamed = [...killed, ...twins, final].flatMap((invocation) =>
      completeLines(invocation.stdout).map((line) => (JSON.parse(line) as { id: string }).id),
    );
    expect(new Set(streamed).size).toBe(streamed.length);
    for (const id of streamed) expect(ids).toContain(id);
  }, 240_000);
});
