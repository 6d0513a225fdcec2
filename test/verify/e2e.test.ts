// The built hermes-verify as a real process in a pipe: records stream through it into the next
// stage unchanged while it checks them; its exit code says whether the checklist passed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, jsonl, REPO_ROOT, runProcess, tempDir } from '../util/cli.js';
import { recordFor, rowsOf } from './fixtures.js';

interface Exit {
  code: number | null;
  stderr: string;
}

/** `hermes-verify ARGS < input | hermes-filter --no-zero-reasoning`: both exits, the filter's stdout. */
function pipeline(args: readonly string[], input: string): Promise<{ verify: Exit; filter: Exit; stdout: string }> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env['PATH'] ?? '' };
    const verify = spawn(process.execPath, [binPath('verify', 'hermes-verify'), ...args], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const filter = spawn(process.execPath, [binPath('filter', 'hermes-filter'), '--no-zero-reasoning'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    verify.stdout.pipe(filter.stdin);
    const out: Buffer[] = [];
    const verifyErr: Buffer[] = [];
    const filterErr: Buffer[] = [];
    filter.stdout.on('data', (c: Buffer) => out.push(c));
    verify.stderr.on('data', (c: Buffer) => verifyErr.push(c));
    filter.stderr.on('data', (c: Buffer) => filterErr.push(c));
    let verifyExit: Exit | undefined;
    verify.on('error', reject);
    filter.on('error', reject);
    verify.on('close', (code) => {
      verifyExit = { code, stderr: Buffer.concat(verifyErr).toString('utf8') };
    });
    filter.on('close', (code) => {
      const finish = (): void =>
        resolve({
          verify: verifyExit ?? { code: null, stderr: '' },
          filter: { code, stderr: Buffer.concat(filterErr).toString('utf8') },
          stdout: Buffer.concat(out).toString('utf8'),
        });
      if (verifyExit) finish();
      else verify.on('close', finish);
    });
    verify.stdin.end(input);
  });
}

describe('hermes-verify in a pipe (built bin)', () => {
  it('passes a good stream on unchanged to the next stage and exits 0', async () => {
    const dir = tempDir('hermes-verify-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(rowsOf(3)));
    const input = jsonl([0, 1, 2].map((i) => recordFor(i)));
    const res = await pipeline(['--dataset', join(dir, 'prompts.jsonl')], input);
    expect(res.verify.code).toBe(0);
    expect(res.filter.code).toBe(0);
    expect(res.stdout).toBe(input);
    expect(res.verify.stderr).toContain('hermes-verify: PASS: 0 failed, 0 warnings, 9 passed');
  });

  it('exits 1 on a failed check, still passing every record on', async () => {
    const dir = tempDir('hermes-verify-');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(rowsOf(3)));
    const input = jsonl([0, 2].map((i) => recordFor(i)));
    const res = await pipeline(['--dataset', join(dir, 'prompts.jsonl'), '--json', join(dir, 'report.json')], input);
    expect(res.verify.code).toBe(1);
    expect(res.stdout).toBe(input);
    expect(res.verify.stderr).toMatch(/FAIL {2}count +2 of 3 expected .*missing 1 record of prompt_index 1/);
  });

  it('exits 3 naming the place of a line that is not JSON', async () => {
    const res = await runProcess(binPath('verify', 'hermes-verify'), ['-q'], { input: `${jsonl([recordFor(0)])}not json\n` });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/^hermes-verify: error \(at <stdin>:2\): invalid JSON/m);
  });
});
