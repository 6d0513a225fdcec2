// One test per upstream batch-runner bug (docs/upstream-differences.md#resume), each showing
// that it cannot happen in hermes-generate's run mode. Real bin, scripted endpoint.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptId } from '@hermes-datagen/core';
import { startScriptedEndpoint, type ScriptedEndpoint } from '@hermes-datagen/testkit';
import { jsonl, runProcess, binPath, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants, readRun } from '../util/runDirectory.js';

let endpoint: ScriptedEndpoint;
beforeAll(async () => {
  endpoint = await startScriptedEndpoint({
    script: {
      sequences: [
        { match: { contains: 'no thinking' }, replies: [{ content: 'an answer without reasoning' }] },
        { match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] },
      ],
      faults: [{ kind: 'unauthorized', when: { prompt: { contains: '[fail]' } } }],
    },
  });
});
afterAll(async () => {
  await endpoint.close();
});

const RUN = ['prompts.jsonl', '--run-name', 'r', '--toolsets', 'todo', '--batch-size', '2'];

async function generate(dir: string, prompts: readonly unknown[], args: readonly string[] = []) {
  writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
  return runGenerate(endpoint.url, prompts, [...RUN, ...args], { dir });
}

/** Requests whose first user message is `prompt`. */
function requestsFor(prompt: string): number {
  return endpoint.requests.filter((request) => JSON.stringify(request.body).includes(JSON.stringify(prompt))).length;
}

describe('upstream batch-runner bugs that cannot happen here', () => {
  it('#86523 (#41857, #42096, #87073): repeated prompts are all run, and resume keeps every copy', async () => {
    const dir = tempDir('hermes-bug-');
    const prompts = [{ prompt: 'same task' }, { prompt: 'same task' }, { prompt: 'same task' }, { prompt: 'this will [fail]' }];
    await generate(dir, prompts);
    await generate(dir, prompts, ['--resume']);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    expect(run.records.map((r) => r['prompt_index']).sort()).toEqual([0, 1, 2]);
    expect(run.trajectories).toHaveLength(3);
  });

  it('#9950, #93527 (#12997, #93653): a discarded prompt leaves a tombstone and is never run again; the merge leaves it out', async () => {
    const dir = tempDir('hermes-bug-');
    const prompts = [{ prompt: 'no thinking in this one' }, { prompt: 'normal' }];
    await generate(dir, prompts);
    const before = requestsFor('no thinking in this one');
    const again = await generate(dir, prompts, ['--resume']);
    expect(again.code).toBe(0);
    expect(requestsFor('no thinking in this one')).toBe(before);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    expect(run.checkpoint.done[promptId(prompts[0]!, 0)]).toMatchObject({ status: 'discarded', reason: 'no_reasoning' });
    expect(run.trajectories.map((line) => (JSON.parse(line) as { prompt_index: number }).prompt_index)).toEqual([1]);
    expect(run.statistics['discarded_no_reasoning']).toBe(1);
  });

  it('#95322: a never-finished row is never skipped because an earlier row held its index', async () => {
    const dir = tempDir('hermes-bug-');
    await generate(dir, [{ prompt: 'first' }, { prompt: 'second [fail]' }]);
    // The dataset changed: a row inserted at the front takes index 0, which "first" held when it finished.
    const changed = [{ prompt: 'inserted' }, { prompt: 'first' }, { prompt: 'second [fail]' }];
    const refused = await generate(dir, changed, ['--resume']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--resume refused: .*the dataset's content/);
    await generate(dir, changed, ['--resume', '--force-resume']);
    expect(requestsFor('inserted')).toBe(1);
    expect(readRun(join(dir, 'data', 'r')).records.some((r) => r['id'] === promptId({ prompt: 'inserted' }, 0))).toBe(true);
  });

  it('#95322: a resume numbers its batch files after the highest one and never appends to or rewrites an old one', async () => {
    const dir = tempDir('hermes-bug-');
    const prompts = Array.from({ length: 6 }, (_, i) => ({ prompt: i === 1 ? 'x [fail]' : `task ${i}` }));
    await generate(dir, prompts);
    const runDir = join(dir, 'data', 'r');
    const old = Object.fromEntries(readRun(runDir).batchFiles.map((name) => [name, readFileSync(join(runDir, name))]));
    await generate(dir, [...prompts, { prompt: 'new 1' }, { prompt: 'new 2' }, { prompt: 'new 3' }], ['--resume', '--force-resume']);
    const after = readRun(runDir);
    for (const [name, bytes] of Object.entries(old)) expect(readFileSync(join(runDir, name))).toEqual(bytes);
    const highest = Math.max(...Object.keys(old).map((name) => Number(name.slice(6, -6))));
    const added = after.batchFiles.filter((name) => !(name in old));
    expect(added.length).toBeGreaterThan(0);
    for (const name of added) expect(Number(name.slice(6, -6))).toBeGreaterThan(highest);
  });

  it('#95322: a prompt that is not a string, or a row that is not an object, is a located input error, not a crash', async () => {
    for (const [rows, line] of [
      ['{"prompt":"ok"}\n{"prompt":42}\n', 2],
      ['{"prompt":"ok"}\n{"prompt":"ok2"}\n["a list"]\n', 3],
    ] as const) {
      const dir = tempDir('hermes-bug-');
      writeFiles(dir, { 'prompts.jsonl': rows });
      const result = await runGenerate(endpoint.url, rows, RUN, { dir });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`prompts.jsonl:${line}`);
      expect(result.stderr).not.toMatch(/internal error|TypeError/);
    }
  });

  it('#297: the checkpoint is replaced whole and a resume adds to it instead of starting it again', async () => {
    const dir = tempDir('hermes-bug-');
    await generate(dir, [{ prompt: 'a' }, { prompt: 'b [fail]' }]);
    await generate(dir, [{ prompt: 'a' }, { prompt: 'b [fail]' }, { prompt: 'c' }], ['--resume', '--force-resume']);
    const runDir = join(dir, 'data', 'r');
    expect(Object.keys(readRun(runDir).checkpoint.done).sort()).toEqual([promptId({ prompt: 'a' }, 0), promptId({ prompt: 'c' }, 2)].sort());
    // No temp file is left beside it.
    expect(readdirSync(runDir).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('#13491, #40856 and the lexicographic glob: batch_10 merges after batch_9, and odd names are left alone', async () => {
    const dir = tempDir('hermes-bug-');
    const prompts = Array.from({ length: 24 }, (_, i) => ({ prompt: `task ${i}`, id: `t${String(i).padStart(2, '0')}` }));
    await generate(dir, prompts, ['--num-workers', '1', '--max-concurrency', '1']);
    const runDir = join(dir, 'data', 'r');
    writeFileSync(join(runDir, 'batch_.jsonl'), 'not a batch file\n');
    writeFileSync(join(runDir, 'batch_x.jsonl'), 'not a batch file\n');
    const again = await generate(dir, prompts, ['--resume']);
    expect(again.code).toBe(0);
    const run = expectRunInvariants(runDir);
    expect(run.batchFiles.at(-1)).toBe('batch_11.jsonl');
    // One prompt at a time: file order is finishing order is dataset order.
    expect(run.trajectories.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(prompts.map((p) => p.id));
  });

  it('the same run name without --resume is refused, never a silent skip by index and a mix', async () => {
    const dir = tempDir('hermes-bug-');
    await generate(dir, [{ prompt: 'a' }]);
    const again = await generate(dir, [{ prompt: 'b' }]);
    expect(again.code).toBe(2);
    expect(requestsFor('b')).toBe(0);
  });

  it("statistics.json covers every record of the run, not only this invocation's", async () => {
    const dir = tempDir('hermes-bug-');
    await generate(dir, [{ prompt: 'a' }, { prompt: 'b [fail]' }]);
    await generate(dir, [{ prompt: 'a' }, { prompt: 'b [fail]' }, { prompt: 'c' }], ['--resume', '--force-resume']);
    expect(readRun(join(dir, 'data', 'r')).statistics).toMatchObject({ trajectories: 2, total_prompts: 3 });
  });

  it("#50197 (#50206): every prompt's resources are released: no workspace is left behind", async () => {
    const dir = tempDir('hermes-bug-');
    await generate(
      dir,
      Array.from({ length: 5 }, (_, i) => ({ prompt: `task ${i}` })),
      ['--toolsets', 'file,terminal'],
    );
    const workspaces = join(dir, 'workspaces');
    expect(existsSync(workspaces) ? readdirSync(workspaces) : []).toEqual([]);
  });

  it('list-distributions lists the distributions (upstream shadowed its own function and crashed)', async () => {
    const result = await runProcess(binPath('generate', 'hermes-generate'), ['list-distributions']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^default: /m);
    // Toolsets whose tools do not run here are marked: a prompt that draws only them is offered no tool.
    expect(result.stdout).toMatch(/^minimal: .*\n {2}web +100% {3}no tools available here \(never offered\)$/m);
    expect(result.stdout).toMatch(/^ {2}terminal +100%$/m);
  });
});
