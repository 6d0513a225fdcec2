// make demo's script as a user runs it: the whole pipeline against the scripted endpoint, one console
// report (with the HTML page written alongside), every file it names present.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../util/cli.js';

describe('make demo (fixtures/demo/run-demo.sh)', () => {
  it('prints the console report once and writes the trajectories, summary and HTML page', async () => {
    const out = tempDir('hermes-demo-');
    const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['fixtures/demo/run-demo.sh'], { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '', SHLVL: '1', HERMES_DEMO_OUTPUT: out } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.match(/HERMES-STATS REPORT/g)).toHaveLength(1);
    expect(res.stdout).toMatch(/Trajectories: 5\n/);
    for (const file of ['trajectories.jsonl', 'statistics.json', 'report.html', 'rejected.jsonl']) expect(existsSync(join(out, file)), file).toBe(true);
  }, 120_000);
});
