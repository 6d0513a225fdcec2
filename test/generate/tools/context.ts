// A real, empty workspace and a tool context around it, for the tool tests.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { safeEnv } from '../../../packages/generate/src/tools/safeEnv.js';
import type { ToolContext } from '../../../packages/generate/src/tools/types.js';

export interface TestWorkspace {
  ctx: ToolContext;
  dir: string;
  cleanup(): Promise<void>;
}

export async function testWorkspace(overrides: Partial<ToolContext> = {}): Promise<TestWorkspace> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'hermes-tools-test-')));
  const ctx: ToolContext = {
    workspace: dir,
    env: safeEnv(process.env),
    timeoutMs: 20_000,
    maxOutputBytes: 50_000,
    todo: { items: [] },
    ...overrides,
  };
  return { ctx, dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
