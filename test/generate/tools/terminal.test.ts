import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolEnv } from '@hermes-datagen/generate/internal/tools/toolEnv.js';
import { terminalTool } from '@hermes-datagen/generate/internal/tools/terminal.js';
import type { CommandResult, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';
import { processEnded, testWorkspace, type TestWorkspace } from './context.js';

describe('terminal', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const run = (command: string, ctx: ToolContext = ws.ctx, extra: Record<string, unknown> = {}): Promise<CommandResult> =>
    terminalTool.run({ command, ...extra }, ctx) as Promise<CommandResult>;

  it('writes a file and runs it in the workspace', async () => {
    const result = await run(`printf 'print(6 * 7)\\n' > calc.py && python3 calc.py && pwd`);
    expect(result).toEqual({ output: `42\n${ws.dir}`, exit_code: 0, error: null });
    expect(await readFile(join(ws.dir, 'calc.py'), 'utf8')).toBe('print(6 * 7)\n');
  });

  it('reports a non-zero exit code with its output and no error', async () => {
    expect(await run('echo out; echo oops >&2; exit 3')).toEqual({ output: 'out\noops', exit_code: 3, error: null });
  });

  it("never runs the user's ~/.bashrc into the result (bash reads it with -c when stdin is a socket)", async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const home = await mkdtemp(join(tmpdir(), 'hermes-home-'));
    await writeFile(join(home, '.bashrc'), 'echo BASHRC_RAN\n');
    const env: Record<string, string> = { ...ws.ctx.env, HOME: home };
    delete env['SHLVL'];
    try {
      expect(await run('echo hi', { ...ws.ctx, env })).toEqual({ output: 'hi', exit_code: 0, error: null });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('gives the command an empty stdin', async () => {
    expect(await run('cat; echo done')).toEqual({ output: 'done', exit_code: 0, error: null });
  });

  // A sleep far beyond the test timeout: a group left alive would hang the test, so no clock is read.
  it('kills the whole process group on timeout, grandchildren included', async () => {
    const result = await run('sleep 300 & echo $! > grandchild.pid; echo started; wait', { ...ws.ctx, timeoutMs: 1000 });
    expect(result.output).toBe('started');
    expect(result.error).toMatch(/^timed out after 1 s; the command and every process it started were killed/);
    const grandchild = Number(await readFile(join(ws.dir, 'grandchild.pid'), 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    expect(await processEnded(grandchild)).toBe(true);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const result = await run(`trap '' TERM; sleep 300 & echo $! > grandchild.pid; wait`, { ...ws.ctx, timeoutMs: 500 });
    expect(result.error).toMatch(/timed out/);
    expect(result.exit_code).toBe(137);
    expect(await processEnded(Number(await readFile(join(ws.dir, 'grandchild.pid'), 'utf8')))).toBe(true);
  });

  it('lets the model ask for a shorter timeout, never a longer one', async () => {
    const shorter = await run('sleep 5', ws.ctx, { timeout: 1 });
    expect(shorter.error).toMatch(/^timed out after 1 s/);
    const longer = await run('sleep 5', { ...ws.ctx, timeoutMs: 700 }, { timeout: 60 });
    expect(longer.error).toMatch(/^timed out after 0\.7 s/);
  });

  it('stops background processes when the command returns', async () => {
    const result = await run('sleep 300 & echo $! > background.pid; echo left');
    expect(result).toEqual({ output: 'left', exit_code: 0, error: null });
    expect(await processEnded(Number(await readFile(join(ws.dir, 'background.pid'), 'utf8')))).toBe(true);
  });

  it('caps the output and marks what was cut', async () => {
    const result = await run(`head -c 100000 /dev/zero | tr '\\0' x; echo; echo THE-END`, { ...ws.ctx, maxOutputBytes: 1000 });
    expect(result.output).toContain('\n[output truncated: 99009 bytes omitted]\n');
    expect(result.output.startsWith('x'.repeat(500))).toBe(true);
    expect(result.output.endsWith('THE-END')).toBe(true);
    expect(result.output.length).toBeLessThan(1100);
  });

  it('stops the command when the run is aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await run('sleep 30', { ...ws.ctx, signal: controller.signal });
    expect(result.error).toMatch(/^stopped/);
  });

  it('never shows secrets in the environment of a command', async () => {
    const planted = { FAKE_API_KEY: 'sk-test-123', MY_TOKEN: 'tok-test-456', INNOCENT_NAME: 'sk-live-key-789', TAOTOKEN_API_KEY: 'sk-live-key-789' };
    Object.assign(process.env, planted);
    try {
      const env = toolEnv(process.env, { secretValues: ['sk-live-key-789'] });
      const result = await run('env', { ...ws.ctx, env });
      expect(result.output).toMatch(/^PATH=/m);
      for (const secret of ['sk-test-123', 'tok-test-456', 'sk-live-key-789', 'FAKE_API_KEY', 'MY_TOKEN', 'INNOCENT_NAME']) {
        expect(result.output).not.toContain(secret);
      }
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name];
    }
  });
});
