// The tool helper (processHelper.ts) once hermes-generate is killed: the replies it still has to send
// (a tool process started for a request that was on the channel when its parent died) are dropped
// without a word, since its stderr is the terminal hermes-generate left; the tool processes it
// started die with it. A real helper, forked by a real parent that SIGKILLs itself with 50 requests
// unread on the channel: each is started, and its 'group' reply meets a closed channel (EPIPE).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../../util/cli.js';
import { processesUnder } from '../../util/processes.js';
import { until } from '../../util/until.js';

/** The built helper: a process of its own runs the compiled module, as hermes-generate forks it. */
const HELPER = join(REPO_ROOT, 'packages/generate/dist/tools/processHelper.js');

/** hermes-generate's part, reduced: fork the helper, wait for its first reply, queue 50 requests, die. */
const PARENT = `
import { fork } from 'node:child_process';
const [helper, cwd] = process.argv.slice(1);
const child = fork(helper, [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
const spec = { file: '/bin/sleep', args: ['300'], cwd, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 60000, maxOutputBytes: 1000 };
child.send({ type: 'run', id: 0, spec });
child.once('message', () => {
  for (let id = 1; id <= 50; id++) child.send({ type: 'run', id, spec });
  process.kill(process.pid, 'SIGKILL');
});
`;

/** Runs the parent; resolves once it and the helper (which shares its stderr) are gone. */
function killedParent(cwd: string): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const parent = spawn(process.execPath, ['--input-type=module', '-e', PARENT, HELPER, cwd], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '' },
    });
    let stderr = '';
    parent.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    parent.on('error', reject);
    // 'close' comes once stderr has ended too: every process that holds it has exited (the helper included).
    parent.on('close', (_code, signal) => resolve({ signal, stderr }));
  });
}

describe('the tool helper after hermes-generate is killed', () => {
  it('drops the replies it cannot send (no EPIPE stack trace on the terminal) and leaves no tool process', async () => {
    // Three times: the replies meet the dead channel each time, and a single unquiet one fails.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const cwd = tempDir('hermes-helper-epipe-');
      const { signal, stderr } = await killedParent(cwd);
      expect(signal, stderr).toBe('SIGKILL');
      expect(stderr).toBe('');
      // Killed as the helper went (a kill lands a moment after it is sent); left alone, a sleep would outlive the test.
      await until(() => processesUnder(cwd).length === 0);
    }
  });
});
