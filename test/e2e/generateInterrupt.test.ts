// Stopping hermes-generate: SIGINT/SIGTERM take no new prompt, abort the running ones (their model
// calls and tool processes) without writing them, and keep every record finished before.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, parseJsonl, tempDir } from '../util/cli.js';
import { expectNoSecret, TEST_MODEL } from '../util/generate.js';
import { until } from '../util/until.js';
import { TEST_API_KEY } from '../util/secrets.js';

describe('hermes-generate, stopped by a signal', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`on ${signal} writes what finished, aborts what runs, and exits ${code}`, async () => {
      const endpoint = await scriptedEndpoint({
        apiKey: TEST_API_KEY,
        script: {
          sequences: [{ match: { regex: '.' }, replies: [{ content: 'done' }] }],
          // Every prompt but the first waits far longer than the test may take: the run is mid-way when
          // stopped, and a run that waited for them instead of aborting them would never end.
          faults: [{ kind: 'slow', delay_ms: 600_000, when: { prompt: { regex: '^slow' } } }],
        },
      });
      const dir = tempDir('hermes-generate-stop-');
      const prompts = [{ prompt: 'quick', id: 'quick' }, ...Array.from({ length: 20 }, (_, i) => ({ prompt: `slow ${i}`, id: `slow-${i}` }))];
      const child = spawn(
        process.execPath,
        [
          binPath('generate', 'hermes-generate'),
          '--base-url',
          endpoint.url,
          '--model',
          TEST_MODEL,
          '--toolsets',
          'todo,file',
          '-c',
          '4',
          '--workspace-root',
          join(dir, 'workspaces'),
        ],
        { cwd: dir, env: { PATH: process.env['PATH'] ?? '', HERMES_API_KEY: TEST_API_KEY }, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      // stdin stays open, as a pipe from a slow producer would.
      child.stdin.write(jsonl(prompts));
      const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));

      await until(() => stdout.includes('"quick"'));
      // All four slots hold slow prompts now: the quick one and four slow ones were sent.
      await until(() => endpoint.requests.length >= 5);
      child.kill(signal);
      const status = await exited;

      expect(status).toBe(code);
      expect((parseJsonl(stdout) as { id: string }[]).map((r) => r.id)).toEqual(['quick']);
      // Stopped prompts are no failures: the closing summary says "0 prompts failed".
      expect(stderr).not.toMatch(/(?<!0 prompts )failed/);
      expect(stderr).toMatch(/ 0 prompts failed, 4 stopped unfinished/);
      // No new prompt started after the signal.
      expect(endpoint.requests.length).toBe(5);
      // The aborted prompts' workspaces are removed like finished ones.
      expect(readdirSync(join(dir, 'workspaces'))).toEqual([]);
      expectNoSecret(dir, { stdout, stderr });
    });
  }
});
