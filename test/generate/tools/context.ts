// A real, empty workspace and a tool context around it, for the tool tests.
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolEnv } from '@hermes-datagen/generate/internal/tools/toolEnv.js';
import { ToolProcesses } from '@hermes-datagen/generate/internal/tools/toolProcesses.js';
import type { ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';

export interface TestWorkspace {
  ctx: ToolContext;
  dir: string;
  cleanup(): Promise<void>;
}

export async function testWorkspace(overrides: Partial<ToolContext> = {}): Promise<TestWorkspace> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'hermes-tools-test-')));
  const ctx: ToolContext = {
    workspace: dir,
    env: toolEnv(process.env),
    processes: new ToolProcesses({ limit: 4, isolation: 'none' }),
    timeoutMs: 20_000,
    maxOutputBytes: 50_000,
    todo: { items: [] },
    ...overrides,
  };
  return { ctx, dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Resolves once the process has ended. A killed process closes its pipes a moment before it is gone,
 * so a check right after the command returned could still see it on a busy machine; a process that
 * is never killed makes the test time out.
 */
export async function processEnded(pid: number): Promise<true> {
  while (await isProcessRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
  return true;
}

/** Whether a process still runs; a zombie (dead, not yet reaped by whoever adopted it) does not. */
async function isProcessRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the command name, which is in parentheses and may contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
