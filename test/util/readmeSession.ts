// One shell session that runs a Markdown file's shell blocks in order, as a user types them into one
// terminal (variables exported by one block are there for the next, a server started in the background
// keeps serving), under `set -eo pipefail`, so the first command that fails stops the session. Each block's
// stdout and stderr go to a file of their own; the session tells which block it was in when it stopped.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ShellBlock } from './readmeBlocks.js';

export interface SessionResult {
  /** What each block printed, for the blocks that ran (the failed one included). */
  outputs: string[];
  /** The block that failed, its exit code and what it printed; undefined when every block succeeded. */
  failure: { block: ShellBlock; code: number; output: string } | undefined;
}

/** Runs the blocks in one bash session in cwd with exactly env; background processes it started are stopped at its end. */
export async function runSession(blocks: readonly ShellBlock[], cwd: string, env: NodeJS.ProcessEnv): Promise<SessionResult> {
  const work = mkdtempSync(join(tmpdir(), 'hermes-readme-session-'));
  try {
    const state = join(work, 'state');
    const output = (i: number): string => join(work, `out-${i}.txt`);
    const driver = ['set -eo pipefail', `cd ${quote(cwd)}`, 'exec </dev/null'];
    blocks.forEach((block, i) => {
      writeFileSync(join(work, `block-${i}.sh`), `${block.script}\n`);
      driver.push(`echo ${i} > ${quote(state)}`, `exec > ${quote(output(i))} 2>&1`, `source ${quote(join(work, `block-${i}.sh`))}`);
    });
    driver.push(`echo done > ${quote(state)}`);
    writeFileSync(join(work, 'driver.sh'), `${driver.join('\n')}\n`);
    const code = await runDetached(join(work, 'driver.sh'), env);
    const reached = readFileSync(state, 'utf8').trim();
    const ran = reached === 'done' ? blocks.length : Number(reached) + 1;
    const outputs = Array.from({ length: ran }, (_, i) => (existsSync(output(i)) ? readFileSync(output(i), 'utf8') : ''));
    const failed = reached === 'done' ? undefined : blocks[Number(reached)];
    return { outputs, failure: failed === undefined ? undefined : { block: failed, code, output: outputs[ran - 1] ?? '' } };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function quote(path: string): string {
  return `'${path.replaceAll("'", "'\\''")}'`;
}

/** Runs bash on the script in a process group of its own, and stops what is left of the group when bash exits. */
function runDetached(script: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { env, detached: true, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Nothing of the group is left.
      }
      resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15));
    });
  });
}
