// make dataset (scripts/dataset.mk) as a user runs it against an endpoint from the environment: killed in
// the middle of generation, run again, it completes with every prompt exactly once; a third run redoes
// nothing. A failed verify, or a stage stopped by SIGTERM, leaves no file of that stage, so the next make
// runs it again. SHARDS=N runs the shards with GNU parallel and merges them. Without an endpoint it stops before generating and points at hermes-generate doctor.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, parseJsonl, REPO_ROOT, tempDir, writeFiles } from '../util/cli.js';
import { until } from '../util/until.js';
import { TEST_API_KEY } from '../util/secrets.js';

interface Make {
  pid: number;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

/** make dataset in its own process group (so the test can interrupt all of it), without rebuilding the tree. */
function makeDataset(vars: Record<string, string>, env: NodeJS.ProcessEnv): Make {
  const child = spawn('make', ['--no-print-directory', '-o', 'build', 'dataset', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return { pid: child.pid ?? -1, done: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, output }))) };
}

function recordsIn(runDir: string): number {
  if (!existsSync(runDir)) return 0;
  return readdirSync(runDir)
    .filter((name) => /^batch_\d+\.jsonl$/.test(name))
    .reduce(
      (sum, name) =>
        sum +
        readFileSync(join(runDir, name), 'utf8')
          .split('\n')
          .filter((line) => line.endsWith('}')).length,
      0,
    );
}

describe('make dataset', () => {
  it('completes after generation is killed midway, with no duplicate and no lost prompt, and then redoes nothing', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      latencyMs: 100,
      script: { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Plan the answer.', content: 'Done.' }] }] },
    });
    const dir = tempDir('hermes-dataset-');
    const prompts = Array.from({ length: 40 }, (_, i) => ({ id: `task-${i}`, prompt: `Task ${i % 30}: say done.` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const vars = {
      RUN: 'killed',
      PROMPTS: join(dir, 'prompts.jsonl'),
      DATA: join(dir, 'data'),
      MODEL: 'scripted',
      GENERATE_FLAGS: '--toolsets todo --batch-size 2 --num-workers 2 --grace 0',
    };
    const env = { OPENAI_BASE_URL: endpoint.url, OPENAI_API_KEY: TEST_API_KEY };
    const out = join(dir, 'data', 'killed');

    const first = makeDataset(vars, env);
    await until(() => recordsIn(join(out, 'runs', 'killed')) >= 6);
    process.kill(-first.pid, 'SIGTERM');
    const stopped = await first.done;
    expect(stopped.code === 0, stopped.output).toBe(false);
    expect(existsSync(join(out, 'generated.jsonl'))).toBe(false);
    expect(recordsIn(join(out, 'runs', 'killed'))).toBeLessThan(prompts.length);

    const second = await makeDataset(vars, env).done;
    expect(second.code, second.output).toBe(0);
    const generated = parseJsonl(readFileSync(join(out, 'generated.jsonl'), 'utf8')) as { id: string }[];
    expect(generated.map((r) => r.id).sort()).toEqual(prompts.map((p) => p.id).sort());
    const manifest = JSON.parse(readFileSync(join(out, 'runs', 'killed', 'run.json'), 'utf8')) as { invocations: unknown[] };
    expect(manifest.invocations).toHaveLength(2);
    const sft = readFileSync(join(out, 'sft.jsonl'), 'utf8').trim().split('\n');
    expect(sft).toHaveLength(prompts.length);
    for (const file of ['filtered.jsonl', 'compressed.jsonl', 'stats.jsonl', 'statistics.json', 'verified.jsonl', 'verify.json'])
      expect(existsSync(join(out, file)), file).toBe(true);

    const finished = statSync(join(out, 'sft.jsonl')).mtimeMs;
    const third = await makeDataset(vars, env).done;
    expect(third.code, third.output).toBe(0);
    expect(third.output).not.toMatch(/hermes-(generate|filter|compress|stats|verify|to-atropos)\.js/);
    expect(statSync(join(out, 'sft.jsonl')).mtimeMs).toBe(finished);
  });

  it('SHARDS=3 generates the shards at once with GNU parallel and merges them, every prompt once', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Plan the answer.', content: 'Done.' }] }] },
    });
    const dir = tempDir('hermes-dataset-');
    const prompts = Array.from({ length: 24 }, (_, i) => ({ prompt: `Task ${i % 20}: say done.` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const result = await makeDataset(
      { RUN: 'sharded', PROMPTS: join(dir, 'prompts.jsonl'), DATA: join(dir, 'data'), MODEL: 'scripted', SHARDS: '3', GENERATE_FLAGS: '--toolsets todo' },
      { OPENAI_BASE_URL: endpoint.url, OPENAI_API_KEY: TEST_API_KEY },
    ).done;
    expect(result.code, result.output).toBe(0);
    const out = join(dir, 'data', 'sharded');
    expect(readdirSync(join(out, 'runs')).sort()).toEqual(['sharded-0-of-3', 'sharded-1-of-3', 'sharded-2-of-3']);
    const perShard = readdirSync(join(out, 'runs')).map((name) => recordsIn(join(out, 'runs', name)));
    expect(perShard.filter((n) => n > 0).length).toBeGreaterThan(1);
    const generated = parseJsonl(readFileSync(join(out, 'generated.jsonl'), 'utf8')) as { prompt_index: number }[];
    expect(generated.map((r) => r.prompt_index).sort((a, b) => a - b)).toEqual(prompts.map((_, i) => i));
    expect(readFileSync(join(out, 'sft.jsonl'), 'utf8').trim().split('\n')).toHaveLength(prompts.length);
  });

  /** A finished make dataset of 12 prompts, for the tests that then spoil one stage. */
  async function finishedDataset(run: string): Promise<{ vars: Record<string, string>; env: NodeJS.ProcessEnv; out: string; dir: string }> {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Plan the answer.', content: 'Done.' }] }] },
    });
    const dir = tempDir('hermes-dataset-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(Array.from({ length: 12 }, (_, i) => ({ prompt: `Task ${i}: say done.` }))) });
    const vars = { RUN: run, PROMPTS: join(dir, 'prompts.jsonl'), DATA: join(dir, 'data'), MODEL: 'scripted', GENERATE_FLAGS: '--toolsets todo' };
    const env = { OPENAI_BASE_URL: endpoint.url, OPENAI_API_KEY: TEST_API_KEY };
    const first = await makeDataset(vars, env).done;
    expect(first.code, first.output).toBe(0);
    return { vars, env, out: join(dir, 'data', run), dir };
  }

  /** Files in a stage directory that are temp files of a stage or of -o. */
  function leftovers(out: string): string[] {
    return readdirSync(out).filter((name) => name.endsWith('.tmp') || name.includes('.tmp-'));
  }

  it('a failed verify leaves no verified.jsonl: the same make again runs verify again and fails again; fixed, it finishes', async () => {
    const { vars, env, out } = await finishedDataset('checked');
    for (const file of ['verified.jsonl', 'sft.jsonl']) rmSync(join(out, file));
    // Two records expected per prompt: the count check fails (exit 1) after passing every record on.
    const failing = { ...vars, VERIFY_FLAGS: '--samples 2' };
    for (const attempt of [1, 2]) {
      const failed = await makeDataset(failing, env).done;
      expect(failed.code, `attempt ${attempt}: ${failed.output}`).not.toBe(0);
      expect(failed.output).toMatch(/hermes-verify\.js/);
      expect(existsSync(join(out, 'verified.jsonl')), `attempt ${attempt}`).toBe(false);
      expect(existsSync(join(out, 'sft.jsonl')), `attempt ${attempt}`).toBe(false);
      expect(leftovers(out)).toEqual([]);
    }
    const fixed = await makeDataset(vars, env).done;
    expect(fixed.code, fixed.output).toBe(0);
    expect(readFileSync(join(out, 'sft.jsonl'), 'utf8').trim().split('\n')).toHaveLength(12);
  });

  it('SIGTERM to the compress stage leaves no compressed.jsonl (nor a temp file); the next make compresses again and finishes', async () => {
    const { vars, env, out } = await finishedDataset('stopped');
    const filtered = readFileSync(join(out, 'filtered.jsonl'));
    for (const file of ['filtered.jsonl', 'compressed.jsonl', 'stats.jsonl', 'verified.jsonl', 'sft.jsonl']) rmSync(join(out, file));
    // The compress stage reads a FIFO the test holds open: it is mid-input, for certain, when stopped.
    execFileSync('mkfifo', [join(out, 'filtered.jsonl')]);
    const make = makeDataset(vars, env);
    const fifo = await open(join(out, 'filtered.jsonl'), 'w');
    await fifo.write(filtered.subarray(0, filtered.indexOf(0x0a) + 1));
    let compressPid = 0;
    await until(() => {
      const temp = readdirSync(out).find((name) => name.startsWith('.compressed.jsonl.tmp.tmp-'));
      compressPid = Number(/\.tmp-(\d+)-/.exec(temp ?? '')?.[1] ?? 0);
      return compressPid > 0;
    });
    process.kill(compressPid, 'SIGTERM');
    const stopped = await make.done;
    await fifo.close();
    expect(stopped.code === 0, stopped.output).toBe(false);
    expect(stopped.output).toMatch(/hermes-compress.js.*\n(.*\n)*.*Error 143/);
    expect(existsSync(join(out, 'compressed.jsonl'))).toBe(false);
    expect(leftovers(out)).toEqual([]);

    rmSync(join(out, 'filtered.jsonl'));
    writeFiles(out, { 'filtered.jsonl': filtered });
    const again = await makeDataset(vars, env).done;
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/hermes-compress\.js/);
    expect(readFileSync(join(out, 'sft.jsonl'), 'utf8').trim().split('\n')).toHaveLength(12);
  });

  it('stops before generating when no endpoint is configured, and names hermes-generate doctor', async () => {
    const dir = tempDir('hermes-dataset-');
    writeFiles(dir, { 'prompts.jsonl': jsonl([{ prompt: 'say done' }]) });
    const result = await makeDataset({ RUN: 'none', PROMPTS: join(dir, 'prompts.jsonl'), DATA: join(dir, 'data') }, {}).done;
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/no endpoint configured.*hermes-generate doctor/);
    expect(existsSync(join(dir, 'data', 'none', 'runs'))).toBe(false);
  });
});
