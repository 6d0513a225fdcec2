// A cgroup per prompt: detection on fake cgroupfs layouts, and on this machine's real cgroups (the
// test machines give root a writable cgroup v1 or v2 tree) the limits of all a prompt's tool
// processes together, across its calls: what per-process rlimits cannot bound.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectCgroups, limitsMechanism, PromptCgroups, type CgroupLayout } from '@hermes-datagen/generate/internal/tools/promptCgroups.js';
import { DEFAULT_SANDBOX_POLICY, hostProgramsEnv, hostSandbox, type HostIsolation } from '@hermes-datagen/generate/internal/tools/sandbox.js';
import { terminalTool } from '@hermes-datagen/generate/internal/tools/terminal.js';
import { DEFAULT_TOOL_LIMITS } from '@hermes-datagen/generate/internal/tools/toolLimits.js';
import { ToolProcesses } from '@hermes-datagen/generate/internal/tools/toolProcesses.js';
import type { CommandResult, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';
import { processEnded, testWorkspace, type TestWorkspace } from './context.js';

function fakeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'hermes-fake-cgroupfs-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('detectCgroups on a fake cgroupfs', () => {
  const roots: string[] = [];
  const fake = (files: Record<string, string>): string => {
    const root = fakeRoot(files);
    roots.push(root);
    return root;
  };
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('finds cgroup v1 pids and memory hierarchies at this process own cgroups, with memsw when it is there', () => {
    const root = fake({
      'pids/cgroup.procs': '',
      'memory/cgroup.procs': '',
      'memory/job/7/memory.limit_in_bytes': '9223372036854771712\n',
      'memory/job/7/memory.memsw.limit_in_bytes': '9223372036854771712\n',
    });
    expect(detectCgroups(root, '8:pids:/\n4:memory:/job/7\n1:cpu,cpuacct:/\n0::/\n')).toEqual({
      version: 1,
      pids: join(root, 'pids'),
      memory: join(root, 'memory/job/7'),
      memsw: true,
    });
  });

  it('finds cgroup v2 where the pids and memory controllers are delegated to the children of its own cgroup', () => {
    const root = fake({ 'cgroup.controllers': 'cpu io memory pids\n', 'cgroup.subtree_control': '', 'user.slice/cgroup.subtree_control': 'memory pids\n' });
    expect(detectCgroups(root, '0::/user.slice\n')).toEqual({ version: 2, parent: join(root, 'user.slice') });
    // The same tree with only memory delegated: nothing usable.
    writeFileSync(join(root, 'user.slice/cgroup.subtree_control'), 'memory\n');
    expect(detectCgroups(root, '0::/user.slice\n')).toBeUndefined();
  });

  it('takes the hybrid layout cgroup v1 where its cgroup2 mount (unified) has no controllers', () => {
    const root = fake({
      'unified/cgroup.controllers': '',
      'unified/cgroup.subtree_control': '',
      'pids/cgroup.procs': '',
      'memory/memory.limit_in_bytes': '',
    });
    expect(detectCgroups(root, '8:pids:/\n4:memory:/\n0::/\n')).toEqual({ version: 1, pids: join(root, 'pids'), memory: join(root, 'memory'), memsw: false });
  });

  it('finds none without a pids or memory hierarchy, and none on an empty directory', () => {
    expect(detectCgroups(fake({ 'pids/cgroup.procs': '', 'cpu/cgroup.procs': '' }), '8:pids:/\n1:cpu:/\n')).toBeUndefined();
    expect(detectCgroups(fake({ README: '' }), '')).toBeUndefined();
  });

  it('refuses, with the reason, a layout where no cgroup can be made (the run then takes rlimits)', () => {
    const missing = join(tmpdir(), `hermes-no-cgroupfs-${process.pid}`);
    expect(PromptCgroups.open({ version: 1, pids: join(missing, 'pids'), memory: join(missing, 'memory'), memsw: false }, 40, 1024 ** 2)).toMatch(
      /^could not make the prompt's cgroup .*hermes-\d+-\d+ limited to 40 processes and 1 MiB: ENOENT/,
    );
  });

  it('names the mechanism in force', () => {
    expect(limitsMechanism({ version: 1, pids: '/p', memory: '/m', memsw: false })).toBe('cgroup v1 (pids, memory) per prompt');
    expect(limitsMechanism({ version: 2, parent: '/c' })).toBe('cgroup v2 (pids, memory) per prompt');
    expect(limitsMechanism(undefined)).toBe('rlimits per process');
  });
});

/** The prompt cgroups this machine has: the test machines run as root with writable cgroups. */
function machineCgroups(): CgroupLayout {
  const layout = detectCgroups();
  if (layout === undefined) throw new Error('this machine has no writable cgroup v1 (pids, memory) or v2 tree: run these tests as root on the test machines');
  return layout;
}

function cgroupParents(layout: CgroupLayout): string[] {
  return layout.version === 2 ? [layout.parent] : [layout.pids, layout.memory];
}

function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a cgroup per prompt on this machine', () => {
  let ws: TestWorkspace;
  const layout = machineCgroups();
  beforeEach(async () => {
    ws = await testWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const limits = { ...DEFAULT_TOOL_LIMITS, maxProcs: 40, memoryBytes: 128 * 1024 ** 2 };
  const open = (): PromptCgroups => {
    const cgroups = PromptCgroups.open(layout, limits.maxProcs, limits.memoryBytes);
    if (typeof cgroups === 'string') throw new Error(cgroups);
    return cgroups;
  };
  const processes = (isolation: HostIsolation, cgroups: PromptCgroups | undefined): ToolProcesses =>
    new ToolProcesses({
      limit: 2,
      isolation: hostSandbox(isolation, undefined, hostProgramsEnv(process.env), { ...DEFAULT_SANDBOX_POLICY, limits, cgroups: cgroups?.layout }),
      cgroups,
    });
  const run = (ctx: ToolContext, command: string): Promise<CommandResult> => terminalTool.run({ command }, ctx) as Promise<CommandResult>;
  /**
   * A call that leaves 15 processes running after it returns: out of its process group, so only a
   * cgroup holds them. It returns once `total` of them have left the group (are sleep, after setsid),
   * or at once without a total.
   */
  const leaveRunning = (seconds: string, total?: number): string =>
    // Started by dash, which gives up on a refused fork at once (bash tries again for 15 s).
    `sh -c 'for i in $(seq 15); do setsid sleep ${seconds} > /dev/null 2>&1 & done'; ` +
    `${total === undefined ? '' : `until [ "$(pgrep -c -x -f 'sleep ${seconds}')" -ge ${total} ]; do sleep 0.01; done; `}echo started`;
  /** A sleep's running time unique to this test and this process, to find its processes by. */
  const sleepFor = (test: number): string => `${3000 + test}.${process.pid}`;
  const sleeping = (seconds: string): number[] => processesWith(`sleep\0${seconds}\0`);

  it("bounds all of a prompt's processes together, across calls, which per-process rlimits cannot: the next prompt is unaffected, and the prompt's end kills them and removes its cgroup", async () => {
    const marker = sleepFor(1);
    const cgroups = open();
    const tools = processes('none', cgroups);
    const cgroup = tools.promptCgroup();
    expect(cgroup).toBeDefined();
    const ctx: ToolContext = { ...ws.ctx, processes: tools, ...(cgroup === undefined ? {} : { cgroup }) };
    const current = (): number => Number(readFileSync(join(cgroup?.dirs()[0] ?? '', 'pids.current'), 'utf8'));
    // Each call alone is far below the limit of 40; the third finds the 30 the first two left.
    expect(await run(ctx, leaveRunning(marker, 15))).toEqual({ output: 'started', exit_code: 0, error: null });
    expect(current()).toBe(15);
    expect(await run(ctx, leaveRunning(marker, 30))).toEqual({ output: 'started', exit_code: 0, error: null });
    expect(current()).toBe(30);
    const third = await run(ctx, leaveRunning(marker));
    expect(third.error).toMatch(
      /^this prompt's tool processes together reached their limit of 40 processes \(--tool-max-procs, a cgroup per prompt, counting those earlier calls left running\): further processes could not start/,
    );
    // The 30 left running are still there; of the third call's, those that had not left its group went with it.
    expect(current()).toBeGreaterThanOrEqual(30);
    expect(current()).toBeLessThanOrEqual(40);
    const dirs = cgroup?.dirs() ?? [];
    expect(dirs).toHaveLength(layout.version === 2 ? 1 : 2);

    // Another prompt, while the first still holds its processes: a cgroup and limits of its own.
    const next = tools.promptCgroup();
    const other: ToolContext = { ...ws.ctx, processes: tools, ...(next === undefined ? {} : { cgroup: next }) };
    expect(await run(other, leaveRunning(sleepFor(3), 15))).toEqual({ output: 'started', exit_code: 0, error: null });
    await next?.close();

    // Started sleepers all, whether or not they were sleep yet when the call returned.
    await until(() => sleeping(marker).length === current());
    const left = sleeping(marker);
    await cgroup?.close();
    for (const pid of left) expect(await processEnded(pid)).toBe(true);
    for (const dir of [...dirs, ...(next?.dirs() ?? [])]) expect(existsSync(dir)).toBe(false);
  });

  it("kills what is left in every prompt's cgroup at once on a forced exit", async () => {
    const marker = sleepFor(4);
    const cgroups = open();
    const tools = processes('none', cgroups);
    const cgroup = tools.promptCgroup();
    const ctx: ToolContext = { ...ws.ctx, processes: tools, ...(cgroup === undefined ? {} : { cgroup }) };
    expect(await run(ctx, leaveRunning(marker, 15))).toEqual({ output: 'started', exit_code: 0, error: null });
    const left = sleeping(marker);
    expect(left).toHaveLength(15);
    tools.killAll();
    for (const pid of left) expect(await processEnded(pid)).toBe(true);
    await cgroup?.close();
  });

  it('without cgroups the same calls are not bounded together: their processes pile up and outlive the prompt', async () => {
    const marker = sleepFor(2);
    const tools = processes('none', undefined);
    expect(tools.promptCgroup()).toBeUndefined();
    const ctx: ToolContext = { ...ws.ctx, processes: tools };
    try {
      for (const total of [15, 30, 45]) expect(await run(ctx, leaveRunning(marker, total))).toEqual({ output: 'started', exit_code: 0, error: null });
      expect(sleeping(marker)).toHaveLength(45);
    } finally {
      for (const pid of sleeping(marker)) process.kill(pid, 'SIGKILL');
    }
  });

  for (const isolation of ['bwrap', 'unshare', 'none'] as const) {
    it(`under ${isolation}, memory over the prompt's limit is an OOM-killed, failed tool call with the message, and the next call runs`, async () => {
      const cgroups = open();
      const tools = processes(isolation, cgroups);
      const cgroup = tools.promptCgroup();
      const ctx: ToolContext = { ...ws.ctx, processes: tools, ...(cgroup === undefined ? {} : { cgroup }) };
      const result = await run(ctx, `python3 -c 'b = bytearray(512 * 1024 ** 2); print("allocated")'`);
      expect(result.output).not.toContain('allocated');
      expect(result.exit_code).toBe(137);
      expect(result.error).toMatch(
        /^a process was killed by the out-of-memory killer: this prompt's tool processes together reached their memory limit of 128 MiB \(--tool-memory, a cgroup per prompt\)/,
      );
      expect(await run(ctx, `python3 -c 'b = bytearray(16 * 1024 ** 2); print("small is fine")'`)).toEqual({
        output: 'small is fine',
        exit_code: 0,
        error: null,
      });
      const dirs = cgroup?.dirs() ?? [];
      await cgroup?.close();
      for (const dir of dirs) expect(existsSync(dir)).toBe(false);
    });
  }

  it('sweeps the cgroups a run that is gone left behind, and leaves those of live runs', () => {
    const gone = spawnSync('true').pid;
    const parents = cgroupParents(layout);
    const stale = parents.map((parent) => join(parent, `hermes-${gone}-1`));
    const live = parents.map((parent) => join(parent, `hermes-${process.pid}-9999`));
    for (const dir of [...stale, ...live]) mkdirSync(dir);
    try {
      open();
      for (const dir of stale) expect(existsSync(dir)).toBe(false);
      for (const dir of live) expect(existsSync(dir)).toBe(true);
    } finally {
      // A cgroup goes with rmdir (its control files cannot be unlinked); the swept ones are gone already.
      for (const dir of [...stale, ...live]) if (existsSync(dir)) rmdirSync(dir);
    }
  });
});
