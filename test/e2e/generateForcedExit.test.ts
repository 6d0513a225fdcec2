// A second Ctrl-C exits hermes-generate at once, without waiting for the run's own cleanup; even so
// it kills the tool processes, removes the temp workspace root with every prompt's directory in it,
// and writes --stats-out.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, tempDir } from '../util/cli.js';
import { TEST_MODEL } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { until } from '../util/until.js';

/** Processes of this machine whose command line is `sleep <marker>`. */
function sleepers(marker: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${marker}\0`;
    } catch {
      return false;
    }
  });
}

describe('hermes-generate, stopped by a second Ctrl-C', () => {
  it('kills the tool processes, removes the temp workspace root and writes --stats-out, exit 130', async () => {
    const marker = `3004.${process.pid}`;
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      // Every command ignores SIGTERM, so the first Ctrl-C leaves the run waiting for the kill grace period.
      script: {
        sequences: [
          {
            match: { regex: '.' },
            replies: [{ tool_calls: [{ name: 'terminal', arguments: { command: `trap '' TERM; sleep ${marker}` } }] }, { content: 'done' }],
          },
        ],
      },
    });
    const dir = tempDir('hermes-generate-force-');
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const prompts = Array.from({ length: 8 }, (_, i) => ({ prompt: `task ${i}` }));
    // No --workspace-root: the workspaces go under a temp root of the run's own, in TMPDIR.
    const child = spawn(
      process.execPath,
      [
        binPath('generate', 'hermes-generate'),
        '--base-url',
        endpoint.url,
        '--model',
        TEST_MODEL,
        '--toolsets',
        'terminal',
        '--sandbox',
        'none',
        '-c',
        '4',
        '--stats-out',
        'stats.json',
      ],
      { cwd: dir, env: { PATH: process.env['PATH'] ?? '', HERMES_API_KEY: TEST_API_KEY, TMPDIR: tmp }, stdio: ['pipe', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(jsonl(prompts));
    const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));

    await until(() => sleepers(marker).length === 4);
    expect(readdirSync(join(tmp, `hermes-generate-${child.pid}`))).toHaveLength(4);
    child.kill('SIGINT');
    // The first is being handled (the commands ignore its SIGTERM) when the second comes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');

    expect(await exited, stderr).toBe(130);
    expect(readdirSync(tmp)).toEqual([]);
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { exit_code: number; counters: Record<string, number> };
    expect(stats).toMatchObject({ command: 'hermes-generate', exit_code: 130 });
    expect(stats.counters['records_in']).toBeGreaterThanOrEqual(4);
    await until(() => sleepers(marker).length === 0);
  });
});
