// The run's one door for tool processes: every byte a process wrote is in its result, however late
// it arrives; no more than --tool-concurrency processes run at once; a forced exit kills them all.
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostSandbox } from '@hermes-datagen/generate/internal/tools/sandbox.js';
import { terminalTool } from '@hermes-datagen/generate/internal/tools/terminal.js';
import { ToolProcesses } from '@hermes-datagen/generate/internal/tools/toolProcesses.js';
import type { CommandResult, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';
import { REPO_ROOT } from '../../util/cli.js';
import { testWorkspace, type TestWorkspace } from './context.js';

describe('ToolProcesses', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const run = (command: string, ctx: ToolContext = ws.ctx): Promise<CommandResult> => terminalTool.run({ command }, ctx) as Promise<CommandResult>;

  it('waits for the pipes to close: output written after the command exited is in the result', async () => {
    // A process that left the group writes after the shell has exited (and longer after than any
    // fixed drain delay). No sandbox here, so nothing kills it on the way.
    const result = await run(`setsid sh -c ': > left-group; sleep 1.2; echo late' & until [ -e left-group ]; do sleep 0.01; done; echo early`);
    expect(result).toEqual({ output: 'early\nlate', exit_code: 0, error: null });
  });

  it('keeps every byte of hundreds of runs while the event loop is blocked for seconds', async () => {
    const runs = Array.from({ length: 100 }, (_, i) => run(`echo token-${i}; head -c ${1000 + i * 100} /dev/zero | tr '\\0' a`));
    // What hundreds of spawn() calls did to a busy run: the loop stalls while the processes run and exit.
    for (let stall = 0; stall < 4; stall += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      const until = Date.now() + 700;
      while (Date.now() < until);
    }
    const results = await Promise.all(runs);
    expect(results).toEqual(Array.from({ length: 100 }, (_, i) => ({ output: `token-${i}\n${'a'.repeat(1000 + i * 100)}`, exit_code: 0, error: null })));
  });

  it('runs at most its limit of processes at once', async () => {
    await mkdir(join(ws.dir, 'running'));
    const ctx: ToolContext = { ...ws.ctx, processes: new ToolProcesses({ limit: 2, isolation: 'none' }) };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => run(`touch running/${i}; sleep 0.2; ls running | wc -l; rm running/${i}`, ctx)));
    const seen = results.map((result) => Number(result.output));
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(1);
  });

  it('never starts a process whose call was aborted while it waited for a slot', async () => {
    const ctx: ToolContext = { ...ws.ctx, processes: new ToolProcesses({ limit: 1, isolation: 'none' }) };
    const controller = new AbortController();
    const first = run('sleep 0.5; echo first', ctx);
    const second = run('echo second > second.txt', { ...ctx, signal: controller.signal });
    controller.abort();
    expect(await second).toEqual({ output: '', exit_code: null, error: expect.stringMatching(/^stopped/) });
    expect(await first).toEqual({ output: 'first', exit_code: 0, error: null });
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(ws.dir, 'second.txt'))).toBe(false);
  });

  it('kills every running process group at once on a forced exit', async () => {
    const processes = new ToolProcesses({ limit: 4, isolation: 'none' });
    const ctx: ToolContext = { ...ws.ctx, processes };
    const running = [run('sleep 30', ctx), run('sleep 30 & wait', ctx)];
    await new Promise((resolve) => setTimeout(resolve, 200));
    processes.killAll();
    for (const result of await Promise.all(running)) expect(result).toEqual({ output: '', exit_code: 137, error: null });
  });

  it('waits out a spawn that finds no file descriptor left (EMFILE) and runs it once others have ended: every call gets its result', async () => {
    // A real process under `ulimit -n 64`, asking for 100 commands at once: most cannot get pipes at first.
    // (Node and the tool helper hold about 37 descriptors before the first command: under 40, no
    // command could ever start, and the calls would wait for ever, as documented.)
    const script = [
      `import { terminalTool } from ${JSON.stringify(join(REPO_ROOT, 'packages/generate/dist/tools/terminal.js'))};`,
      `import { ToolProcesses } from ${JSON.stringify(join(REPO_ROOT, 'packages/generate/dist/tools/toolProcesses.js'))};`,
      `const ctx = { workspace: ${JSON.stringify(ws.dir)}, env: { PATH: process.env.PATH }, processes: new ToolProcesses({ limit: 100, isolation: 'none' }), timeoutMs: 20000, maxOutputBytes: 1000, todo: { items: [] } };`,
      `const results = await Promise.all(Array.from({ length: 100 }, () => terminalTool.run({ command: 'echo ok' }, ctx)));`,
      `process.stdout.write(JSON.stringify(results));`,
    ].join('\n');
    // The timeout is a guard against a hang, not a measure: the calls wait as long as descriptors are short.
    const child = spawnSync('/bin/bash', ['-c', 'ulimit -n 64 && exec "$0" --input-type=module -e "$1"', process.execPath, script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const results = JSON.parse(child.stdout) as CommandResult[];
    expect(results).toHaveLength(100);
    for (const result of results) expect(result).toEqual({ output: 'ok', exit_code: 0, error: null });
  });

  it('reports a program that cannot be started as a tool error, not a crash', async () => {
    const result = await run('echo hi', {
      ...ws.ctx,
      env: { ...ws.ctx.env, PATH: '/nonexistent' },
      processes: new ToolProcesses({ limit: 1, isolation: hostSandbox('bwrap', undefined, { PATH: '/nonexistent' }) }),
    });
    expect(result).toEqual({ output: '', exit_code: null, error: 'could not start bwrap: it was not found on PATH' });
  });
});

describe('ToolProcesses through the process helper', () => {
  let ws: TestWorkspace;
  let processes: ToolProcesses;
  beforeEach(async () => {
    // The built helper: it runs as a process of its own, from dist like the bins.
    processes = new ToolProcesses({ limit: 4, isolation: 'none', helperScript: join(REPO_ROOT, 'packages/generate/dist/tools/processHelper.js') });
    ws = await testWorkspace({ processes });
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const run = (command: string, ctx: ToolContext = ws.ctx): Promise<CommandResult> => terminalTool.run({ command }, ctx) as Promise<CommandResult>;

  it('gives the same results: output, exit code, timeout, a program not found', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => run(`echo token-${i}; exit ${i % 3}`)));
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => ({ output: `token-${i}`, exit_code: i % 3, error: null })));
    expect((await run('sleep 30', { ...ws.ctx, timeoutMs: 300 })).error).toMatch(/^timed out after 0\.3 s/);
    const missing = await processes.run({ file: 'no-such-program-here', args: [], cwd: ws.dir, env: ws.ctx.env, timeoutMs: 5000, maxOutputBytes: 100 });
    expect(missing).toMatchObject({ exitCode: null, spawnError: { code: 'ENOENT', path: 'no-such-program-here' } });
  });

  it('stops a command when its call is aborted, and kills every group at once on a forced exit', async () => {
    const controller = new AbortController();
    const aborted = run('sleep 30', { ...ws.ctx, signal: controller.signal });
    const killed = run('sleep 30');
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    expect((await aborted).error).toMatch(/^stopped/);
    processes.killAll();
    expect(await killed).toEqual({ output: '', exit_code: 137, error: null });
  });

  it('answers the calls of a helper that died with an error result, and starts a new one for the next', async () => {
    const pending = run('echo $PPID > helper.pid; sleep 30');
    const { readFile } = await import('node:fs/promises');
    let helperPid = 0;
    while (helperPid === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      helperPid = Number(await readFile(join(ws.dir, 'helper.pid'), 'utf8').catch(() => '0'));
    }
    process.kill(helperPid, 'SIGKILL');
    expect(await pending).toMatchObject({ exit_code: null, error: expect.stringContaining('the process that starts tool processes ended unexpectedly') });
    expect(await run('echo again')).toEqual({ output: 'again', exit_code: 0, error: null });
  });
});
