// `hermes-generate --run-name r ... | head -1`: stdout's reader goes away early. The run ends
// resumably with exit 4 and a message, every record it wrote is in the run directory, run.json
// records the same exit code, and a --resume finishes the run with every record once.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';

const PROMPTS = Array.from({ length: 600 }, (_, i) => ({ id: `p${i}`, prompt: `task ${i}` }));

/** The run piped into `head -1`; hermes-generate's own exit status and stderr. */
function intoHead(url: string, dir: string): Promise<{ code: number; head: string; stderr: string }> {
  const generate = [binPath('generate', 'hermes-generate'), 'prompts.jsonl', '--base-url', url, '--model', TEST_MODEL, '--run-name', 'r', '--resume'];
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/bin/bash',
      ['-c', '"$@" 2>generate.err | head -1; echo "$((PIPESTATUS[0]))" > generate.code', 'bash', process.execPath, ...generate],
      {
        cwd: dir,
        env: { PATH: process.env['PATH'] ?? '', HERMES_API_KEY: TEST_API_KEY },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let head = '';
    child.stdout?.on('data', (c: Buffer) => (head += c.toString()));
    child.on('error', reject);
    child.on('close', async () => {
      const { readFileSync } = await import('node:fs');
      resolve({ code: Number(readFileSync(join(dir, 'generate.code'), 'utf8')), head, stderr: readFileSync(join(dir, 'generate.err'), 'utf8') });
    });
  });
}

describe('hermes-generate --run-name into a reader that goes away', () => {
  it('ends resumably with exit 4 and a message, run.json agrees, and --resume finishes the run', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      latencyMs: 5,
      script: { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Done.', content: 'ok' }] }] },
    });
    const dir = tempDir('hermes-pipe-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(PROMPTS) });
    const piped = await intoHead(endpoint.url, dir);
    expect(piped.head.trim().split('\n')).toHaveLength(1);
    expect(piped.code, piped.stderr).toBe(4);
    expect(piped.stderr).toMatch(/stdout was closed by its reader \(a \| head\?\) after \d+ records: no new prompt starts/);
    expect(piped.stderr).not.toMatch(/internal error|EPIPE|at .*\.js:\d+/);
    const run = expectRunInvariants(join(dir, 'data', 'r'));
    const invocation = run.manifest.invocations.at(-1)!;
    expect(invocation).toMatchObject({ exit_code: 4, records_written: run.records.length });
    expect(run.records.length).toBeGreaterThan(0);
    expect(run.records.length).toBeLessThan(PROMPTS.length);

    const resumed = await runGenerate(endpoint.url, PROMPTS, ['prompts.jsonl', '--run-name', 'r', '--resume'], { dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = expectRunInvariants(join(dir, 'data', 'r'));
    expect(done.records.map((record) => record['id']).sort()).toEqual(PROMPTS.map((row) => row.id).sort());
  });
});
