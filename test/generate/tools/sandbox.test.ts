// The namespace sandboxes: a tool command sees no process but its own, so no other process's
// environment; of the filesystem only the system directories (read-only), its workspace and empty
// private /tmp and homes, so no file of the user; and whatever it leaves running, even out of its
// process group, ends with it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import {
  chooseSandbox,
  DEFAULT_SANDBOX_POLICY,
  ETC_FILES,
  hostProgramsEnv,
  hostSandbox,
  isolationWorks,
  removeDeadSandboxDirs,
  type HostIsolation,
  type HostSandbox,
  type SandboxPolicy,
} from '@hermes-datagen/generate/internal/tools/sandbox.js';
import { DEFAULT_TOOL_LIMITS } from '@hermes-datagen/generate/internal/tools/toolLimits.js';
import { sandboxFilesystem } from '@hermes-datagen/generate/internal/tools/sandboxFilesystem.js';
import { terminalTool } from '@hermes-datagen/generate/internal/tools/terminal.js';
import { toolEnv } from '@hermes-datagen/generate/internal/tools/toolEnv.js';
import { ToolProcesses } from '@hermes-datagen/generate/internal/tools/toolProcesses.js';
import type { CommandResult, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';
import { REPO_ROOT, runCommand } from '../../util/cli.js';
import { testWorkspace, type TestWorkspace } from './context.js';

const CANARY = 'canary-7d1e0b5a93c2f846';

/** Processes of this machine whose command line holds `marker` (what escaped a sandbox). */
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

describe('namespace sandboxes', () => {
  let ws: TestWorkspace;
  // Another process of the user with a secret in its environment, as hermes-generate holds the key.
  let holder: ChildProcess;
  beforeEach(async () => {
    holder = spawn('sleep', ['60'], { env: { PATH: process.env['PATH'] ?? '', SECRET_HOLDER: CANARY }, stdio: 'ignore' });
    ws = await testWorkspace();
  });
  afterEach(async () => {
    holder.kill('SIGKILL');
    await ws.cleanup();
  });

  const run = (isolation: HostIsolation | HostSandbox, command: string): Promise<CommandResult> =>
    terminalTool.run({ command }, { ...ws.ctx, processes: new ToolProcesses({ limit: 2, isolation }) } satisfies ToolContext) as Promise<CommandResult>;

  const peek = (): string => `cat /proc/${holder.pid}/environ; cat /proc/$PPID/environ; cat /proc/*/environ; ps e -A`;

  it('without one, a command reads the environment of the process that started it (what the sandboxes prevent)', async () => {
    expect((await run('none', peek())).output).toContain(CANARY);
  });

  for (const isolation of ['bwrap', 'unshare'] as const) {
    describe(isolation, () => {
      it('works on this machine (make setup installs bubblewrap)', () => {
        expect(isolationWorks(hostSandbox(isolation, undefined, toolEnv(process.env)), toolEnv(process.env))).toBe(true);
      });

      it('shows the command no process but its own, so no environment but its own', async () => {
        const result = await run(isolation, `${peek()}; echo; ps -A -o comm=`);
        expect(result.output).not.toContain(CANARY);
        expect(result.output).toContain(`/proc/${holder.pid}/environ: No such file or directory`);
        // The namespace's own first processes (bwrap's, or unshare's sh) and the command's.
        const commands = result.output.slice(result.output.lastIndexOf('\n\n') + 2).split('\n');
        expect(commands.filter((name) => !['bwrap', 'sh', 'bash', 'ps', 'cat'].includes(name))).toEqual([]);
      });

      it('runs in the workspace, with the system directories read-only', async () => {
        const result = await run(isolation, 'pwd; echo made > made.txt; test -x /bin/sh && echo host-fs; touch /usr/made 2>/dev/null || echo usr-read-only');
        expect(result).toEqual({ output: `${ws.dir}\nhost-fs\nusr-read-only`, exit_code: 0, error: null });
        expect(readFileSync(join(ws.dir, 'made.txt'), 'utf8')).toBe('made\n');
      });

      it('shows no file of the user: empty /tmp and home (writable), no sibling workspace, hidden secret files', async () => {
        // A home with a .env, a workspace root with another prompt's workspace, a hidden file in /etc.
        const home = mkdtempSync(join(tmpdir(), 'hermes-home-'));
        writeFileSync(join(home, '.env'), `KEY=${CANARY}\n`);
        const sibling = join(ws.dir, '..', `prompt-sibling-${process.pid}`);
        mkdirSync(sibling, { recursive: true });
        writeFileSync(join(sibling, 'secret.txt'), CANARY);
        const env = { ...toolEnv(process.env), HOME: home };
        try {
          const sandbox = hostSandbox(isolation, sandboxFilesystem({ env, hide: ['/etc/hostname'], workspaceRoot: join(ws.dir, '..') }), env);
          const command = `cat ${home}/.env ${sibling}/secret.txt; ls -A /tmp /home /root ${home} ${join(ws.dir, '..')}; cat /etc/hostname; echo HOME=$HOME; touch ~/mine && echo home-writable; python3 -c 'print("py")'; node -e 'console.log("js")'`;
          const result = (await terminalTool.run({ command }, {
            ...ws.ctx,
            // What toolEnv gives a tool: the workspace is its home.
            env: { ...env, HOME: ws.dir },
            processes: new ToolProcesses({ limit: 1, isolation: sandbox }),
          } satisfies ToolContext)) as CommandResult;
          expect(result.output).not.toContain(CANARY);
          expect(result.output).toContain('secret.txt: No such file or directory');
          expect(result.output).not.toMatch(/^prompt-sibling/m);
          expect(result.output).not.toContain(readFileSync('/etc/hostname', 'utf8').trim());
          expect(result.output).toContain(`HOME=${ws.dir}\nhome-writable\npy\njs`);
          expect(readdirSync(home)).toEqual(['.env']);
        } finally {
          rmSync(home, { recursive: true, force: true });
          rmSync(sibling, { recursive: true, force: true });
        }
      });

      it('ends every process the command left behind, even one that left its process group', async () => {
        const marker = `${isolation === 'bwrap' ? 3001 : 3002}.${process.pid}`;
        const result = await run(isolation, `setsid sleep ${marker} & sleep 0.1; echo started`);
        expect(result).toEqual({ output: 'started', exit_code: 0, error: null });
        // The namespace's first process has exited, so the kernel has killed the rest.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(processesWith(`sleep\0${marker}`)).toEqual([]);
      });
    });
  }
});

describe('namespace sandboxes: network, limits, users and devices', () => {
  let ws: TestWorkspace;
  let server: Server;
  let port = 0;
  beforeEach(async () => {
    ws = await testWorkspace();
    // A service of the user on 127.0.0.1, as the model endpoint often is.
    server = createServer((_request, response) => response.end(CANARY)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    server.close();
    await ws.cleanup();
  });

  const sandboxed = (isolation: 'bwrap' | 'unshare', policy?: SandboxPolicy): ToolContext => ({
    ...ws.ctx,
    processes: new ToolProcesses({ limit: 2, isolation: hostSandbox(isolation, undefined, hostProgramsEnv(process.env), policy) }),
  });
  const run = (ctx: ToolContext, command: string): Promise<CommandResult> => terminalTool.run({ command }, ctx) as Promise<CommandResult>;
  const fetchLocal = (): string =>
    `node -e 'fetch("http://127.0.0.1:${port}/").then((r) => r.text()).then((t) => console.log("got", t), (e) => console.log("refused", e.cause?.code ?? e.message))'; cat /proc/net/tcp | wc -l`;

  for (const isolation of ['bwrap', 'unshare'] as const) {
    describe(isolation, () => {
      it("reaches no service of this machine's 127.0.0.1, sees no listener in /proc/net/tcp, and has a loopback of its own", async () => {
        const result = await run(
          sandboxed(isolation),
          `${fetchLocal()}; node -e 'require("net").createServer().listen(0, "127.0.0.1", function () { require("net").connect(this.address().port, "127.0.0.1", () => { console.log("own loopback"); process.exit(0); }); })'`,
        );
        expect(result.output).not.toContain(CANARY);
        expect(result.output).toMatch(/^refused (ECONNREFUSED|ENETUNREACH)$/m);
        // The header line of /proc/net/tcp only: no socket of the host's.
        expect(result.output).toMatch(/^1$/m);
        expect(result.output).toContain('own loopback');
      });

      it('shares the host network only with --tool-network', async () => {
        const result = await run(sandboxed(isolation, { ...DEFAULT_SANDBOX_POLICY, network: true }), fetchLocal());
        expect(result.output).toContain(`got ${CANARY}`);
      });

      it('contains a fork bomb of 600 background processes: a failed call with a clear message, and the next command runs', async () => {
        const ctx = sandboxed(isolation);
        const bomb = await run(
          ctx,
          '(for i in $(seq 600); do sleep 30 > /dev/null 2>&1 & done) 2> bomb.err; n=0; for p in /proc/[0-9]*; do n=$((n + 1)); done; echo "alive: $n"; read -r line < bomb.err; echo "$line"',
        );
        expect(bomb.error).toMatch(/limit of 256 processes \(--tool-max-procs\)/);
        expect(Number(/alive: (\d+)/.exec(bomb.output)?.[1])).toBeLessThanOrEqual(DEFAULT_TOOL_LIMITS.maxProcs);
        expect(await run(ctx, 'echo still here')).toEqual({ output: 'still here', exit_code: 0, error: null });
      });

      it('fails a 3 GiB allocation with a clear tool error (python and node), and the next command runs', async () => {
        const ctx = sandboxed(isolation);
        for (const command of [
          `python3 -c 'b = bytearray(3 * 1024 ** 3); print("allocated")'`,
          `node -e 'console.log("allocated", Buffer.alloc(3 * 1024 ** 3).length)'`,
        ]) {
          const result = await run(ctx, command);
          expect(result.output).not.toContain('allocated');
          expect(result.error).toMatch(/could not allocate memory beyond the sandbox's limit of 2 GiB per process \(--tool-memory\)/);
        }
        expect(await run(ctx, `python3 -c 'b = bytearray(64 * 1024 ** 2); print("small is fine")'`)).toMatchObject({ output: 'small is fine', error: null });
      });

      it('stops a process at its CPU time limit', async () => {
        const result = await run(
          sandboxed(isolation, { ...DEFAULT_SANDBOX_POLICY, limits: { ...DEFAULT_TOOL_LIMITS, cpuSeconds: 1 } }),
          `python3 -c 'while True: pass'`,
        );
        expect(result.error).toMatch(/CPU time limit of 1 s \(--tool-cpu-seconds\)/);
      });

      it('runs tools as an unprivileged user that cannot read /etc/shadow, with a private /dev/shm', async () => {
        writeFileSync('/dev/shm/hermes-host-shm-canary', CANARY);
        try {
          const result = await run(sandboxed(isolation), 'id -u; cat /etc/shadow; ls -A /dev/shm; ls /dev; echo written > mine.txt && cat mine.txt');
          expect(result.output).not.toContain(CANARY);
          // Missing (bwrap), or an empty file over it (unshare); unreadable by the sandbox user either way.
          expect(result.output).not.toMatch(/^root:/m);
          expect(result.output).toContain('written');
          if (process.getuid?.() === 0) expect(result.output.split('\n')[0]).not.toBe('0');
          if (isolation === 'bwrap') {
            // Only the devices a program needs, not the host's disks.
            const devices = result.output.split('\n').filter((line) => /^(null|zero|sd.|nvme.*|vd.|loop\d+)$/.test(line));
            expect(devices).toEqual(['null', 'zero']);
          }
        } finally {
          rmSync('/dev/shm/hermes-host-shm-canary', { force: true });
        }
      });
    });
  }

  it('bwrap shows an /etc of only what programs need: no shadow, sudoers, ssh keys or host users', async () => {
    const result = await run(sandboxed('bwrap'), 'ls -A /etc; echo; cat /etc/passwd; ls /etc/ssl');
    const listed = result.output.slice(0, result.output.indexOf('\n\n')).split('\n');
    for (const name of listed)
      expect(
        [...ETC_FILES, 'passwd', 'group', 'ssl', 'pki'].map((entry) => entry.split('/')[0]),
        name,
      ).toContain(name.replace(/^python3(\.\d+)?$/, 'perl'));
    expect(listed).not.toEqual(expect.arrayContaining(['shadow']));
    expect(result.output).toMatch(/^sandbox:x:\d+:\d+:/m);
    expect(result.output.match(/^[a-z_][a-z0-9_-]*:x:/gm)).toHaveLength(2);
    expect(result.output).toContain('certs');
    expect(result.output).not.toContain('private');
  });
});

describe('chooseSandbox', () => {
  const env = toolEnv(process.env);

  it('auto takes bwrap where it works', () => {
    expect(chooseSandbox('auto', env)).toMatchObject({
      host: { isolation: 'bwrap' },
      docker: false,
      description: expect.stringContaining('--sandbox bwrap, chosen by auto'),
    });
  });

  it('auto falls back to unshare without bwrap, and to none with a warning without either', () => {
    const onlyUnshare = mkdtempSync(join(tmpdir(), 'hermes-path-'));
    symlinkSync('/usr/bin/unshare', join(onlyUnshare, 'unshare'));
    try {
      expect(chooseSandbox('auto', { ...env, PATH: onlyUnshare })).toMatchObject({
        host: { isolation: 'unshare' },
        description: expect.stringContaining('--sandbox unshare, chosen by auto'),
      });
    } finally {
      rmSync(onlyUnshare, { recursive: true, force: true });
    }
    expect(chooseSandbox('auto', { ...env, PATH: '/nonexistent' })).toMatchObject({
      host: { isolation: 'none' },
      warning: expect.stringContaining('install bubblewrap'),
    });
    // Loud about the network too: tools could call the endpoint with the user's session.
    expect(chooseSandbox('auto', { ...env, PATH: '/nonexistent' })).toMatchObject({
      warning: expect.stringMatching(/127\.0\.0\.1 \(the model endpoint included/),
    });
  });

  it('probes the interpreters when the first command starts, not when the sandbox is chosen', async () => {
    // A python3 that says where it is installed, and leaves a mark each time it is asked.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-python-')));
    // Where the sandbox user (under root) can reach it, as an installed interpreter is.
    chmodSync(dir, 0o755);
    const prefix = join(dir, 'prefix');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(dir, 'shim'));
    const marks = join(dir, 'asked');
    writeFileSync(join(dir, 'shim', 'python3'), `#!/bin/sh\necho asked >> ${marks}\necho ${prefix}\n`, { mode: 0o755 });
    const shimmed = { ...env, PATH: `${join(dir, 'shim')}:${env['PATH'] ?? ''}` };
    const ws = await testWorkspace();
    try {
      const chosen = chooseSandbox('auto', shimmed);
      if (typeof chosen === 'string') throw new Error(chosen);
      expect(readdirSync(dir)).not.toContain('asked');
      const ctx = { ...ws.ctx, env: shimmed, processes: new ToolProcesses({ limit: 1, isolation: chosen.host }) } satisfies ToolContext;
      for (let i = 0; i < 2; i += 1) {
        const result = (await terminalTool.run({ command: 'echo "$PATH"' }, ctx)) as CommandResult;
        expect(result.output.split(':')[0]).toBe(join(prefix, 'bin'));
      }
      expect(readFileSync(marks, 'utf8')).toBe('asked\n');
    } finally {
      await ws.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('root of a user namespace that maps no other user (unshare -r, a rootless container): auto falls back to none, never a crash', async () => {
    // A process of its own in such a namespace: there chown to the sandbox user fails with EINVAL.
    const script = `import { chooseSandbox } from ${JSON.stringify(join(REPO_ROOT, 'packages/generate/dist/tools/sandbox.js'))};
const auto = chooseSandbox('auto', { PATH: process.env.PATH });
console.log(JSON.stringify({ auto: auto.description, bwrap: chooseSandbox('bwrap', { PATH: process.env.PATH }) }));`;
    const res = await runCommand('unshare', ['-r', process.execPath, '--input-type=module', '-e', script]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      auto: 'tool commands run as plain host processes (--sandbox auto found neither bwrap nor unshare working)',
      bwrap: expect.stringMatching(/^--sandbox bwrap cannot run a command on this machine/),
    });
  });

  it('a sandbox asked for by name that cannot run here is a message for a usage error', () => {
    expect(chooseSandbox('bwrap', { ...env, PATH: '/nonexistent' })).toMatch(/^--sandbox bwrap cannot run a command on this machine; install bubblewrap/);
    expect(chooseSandbox('none', env)).toMatchObject({
      host: { isolation: 'none' },
      docker: false,
      warning: expect.stringMatching(/^--sandbox none: .*network/),
    });
    expect(chooseSandbox('bwrap', env, { policy: { ...DEFAULT_SANDBOX_POLICY, network: true } })).toMatchObject({
      warning: expect.stringMatching(/^--tool-network: tool commands share this machine's network/),
      description: expect.stringContaining("with this machine's network"),
    });
    expect(chooseSandbox('bwrap', env)).not.toHaveProperty('warning');
    expect(chooseSandbox('docker', env)).toMatchObject({ host: { isolation: 'none' }, docker: true });
  });
});

describe('removeDeadSandboxDirs', () => {
  it('removes the sandbox directories a killed process left, and nothing of a process that runs or of anyone else', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'hermes-tmp-'));
    try {
      // A pid that ran and is gone (spawnSync has reaped it).
      const dead = spawnSync('true').pid;
      const names = [
        `hermes-sandbox-${dead}-a1B2c3`,
        `hermes-sandbox-probe-${dead}-d4E5f6`,
        `hermes-sandbox-${process.pid}-g7H8i9`,
        // Not named as the sandbox names its directories (another program's, or an older run's).
        'hermes-sandbox-0FGTMI',
        `hermes-sandbox-${dead}-toolong1`,
        `other-${dead}-a1B2c3`,
      ];
      for (const name of names) mkdirSync(join(tmp, name));
      writeFileSync(join(tmp, names[0]!, 'empty'), '');
      // A file of that name is no directory of the sandbox.
      writeFileSync(join(tmp, `hermes-sandbox-${dead}-j1K2l3`), '');
      expect(removeDeadSandboxDirs(tmp)).toBe(2);
      expect(readdirSync(tmp).sort()).toEqual([...names.slice(2), `hermes-sandbox-${dead}-j1K2l3`].sort());
      // The names are the sandbox's own: the directory of this process's sandbox (made by its first command) is one.
      hostSandbox('unshare', sandboxFilesystem({ env: toolEnv(process.env) })).command('/bin/true', [], tmp);
      const own = readdirSync(tmpdir()).filter((name) => name.startsWith(`hermes-sandbox-${process.pid}-`));
      expect(own).toHaveLength(1);
      removeDeadSandboxDirs();
      expect(existsSync(join(tmpdir(), own[0]!))).toBe(true);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('sandboxFilesystem', () => {
  it('hides a secret file only where it would be visible, and empties HOME and a workspace root inside a shown directory', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-home-')));
    try {
      const shown = sandboxFilesystem({
        env: { PATH: '/usr/bin', HOME: home },
        hide: ['/etc/hostname', join(home, '.env')],
        workspaceRoot: '/usr/hermes-workspaces',
      });
      expect(shown.hidden).toEqual([readlinkOrSelf('/etc/hostname')]);
      expect(shown.empty).toEqual(expect.arrayContaining(['/tmp', home, '/usr/hermes-workspaces']));
      expect(shown.system).toContain('/usr');
      expect(shown.system).not.toContain('/home');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('leaves a HOME that does not exist missing (a mount point for it cannot be made on the host)', () => {
    expect(sandboxFilesystem({ env: { PATH: '/usr/bin', HOME: '/nonexistent' } }).empty).not.toContain('/nonexistent');
  });
});

function readlinkOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
