// The namespace sandboxes: a tool command sees no process but its own, so no other process's
// environment; of the filesystem only the system directories (read-only), its workspace and empty
// private /tmp and homes, so no file of the user; and whatever it leaves running, even out of its
// process group, ends with it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import {
  chooseSandbox,
  DEFAULT_SANDBOX_POLICY,
  hostProgramsEnv,
  hostSandbox,
  isolationWorks,
  removeDeadSandboxDirs,
  SANDBOX_UID,
  type HostIsolation,
  type HostSandbox,
  type SandboxPolicy,
} from '@hermes-datagen/generate/internal/tools/sandbox.js';
import { DEFAULT_TOOL_LIMITS } from '@hermes-datagen/generate/internal/tools/toolLimits.js';
import { DEV_LINKS, DEV_NODES, ETC_ENTRIES, sandboxFilesystem } from '@hermes-datagen/generate/internal/tools/sandboxFilesystem.js';
import { terminalTool } from '@hermes-datagen/generate/internal/tools/terminal.js';
import { toolEnv } from '@hermes-datagen/generate/internal/tools/toolEnv.js';
import { ToolProcesses } from '@hermes-datagen/generate/internal/tools/toolProcesses.js';
import type { CommandResult, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';
import { processesWith } from '../../util/processes.js';
import { REPO_ROOT, runCommand } from '../../util/cli.js';
import { testWorkspace, type TestWorkspace } from './context.js';

const CANARY = 'canary-7d1e0b5a93c2f846';

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
        // A home with a .env, a workspace root with another prompt's workspace, a secret file in a shown
        // system directory (/opt, writable as root, as the tests run; else in the home, empty anyway).
        const home = mkdtempSync(join(tmpdir(), 'hermes-home-'));
        writeFileSync(join(home, '.env'), `KEY=${CANARY}\n`);
        const hiddenDir = process.getuid?.() === 0 ? mkdtempSync('/opt/hermes-hidden-') : home;
        const hidden = join(hiddenDir, 'secret.env');
        writeFileSync(hidden, CANARY);
        const sibling = join(ws.dir, '..', `prompt-sibling-${process.pid}`);
        mkdirSync(sibling, { recursive: true });
        writeFileSync(join(sibling, 'secret.txt'), CANARY);
        const env = { ...toolEnv(process.env), HOME: home };
        try {
          const sandbox = hostSandbox(isolation, sandboxFilesystem({ env, hide: [hidden], workspaceRoot: join(ws.dir, '..') }), env);
          const command = `cat ${home}/.env ${sibling}/secret.txt; ls -A /tmp /home /root ${home} ${join(ws.dir, '..')}; cat /etc/hostname ${hidden}; echo HOME=$HOME; touch ~/mine && echo home-writable; python3 -c 'print("py")'; node -e 'console.log("js")'`;
          const result = (await terminalTool.run({ command }, {
            ...ws.ctx,
            // What toolEnv gives a tool: the workspace is its home.
            env: { ...env, HOME: ws.dir },
            processes: new ToolProcesses({ limit: 1, isolation: sandbox }),
          } satisfies ToolContext)) as CommandResult;
          expect(result.output).not.toContain(CANARY);
          expect(result.output).toContain('secret.txt: No such file or directory');
          expect(result.output).not.toMatch(/^prompt-sibling/m);
          // Not "the host's name is absent from the output": a short host name can be part of a listed path.
          expect(result.output).toContain('/etc/hostname: No such file or directory');
          expect(result.output).toContain(`HOME=${ws.dir}\nhome-writable\npy\njs`);
          expect(readdirSync(home)).toEqual(['.env']);
        } finally {
          rmSync(home, { recursive: true, force: true });
          rmSync(hiddenDir, { recursive: true, force: true });
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

      it('runs tools as an unprivileged user, with an /etc of only what programs need and a private /dev', async () => {
        const root = process.getuid?.() === 0;
        // Host-only files the sandbox must not show: one in /etc (writable as root, as the tests run), one in /dev/shm.
        const etcCanary = `/etc/hermes-host-canary-${process.pid}`;
        if (root) writeFileSync(etcCanary, CANARY);
        writeFileSync('/dev/shm/hermes-host-shm-canary', CANARY);
        try {
          const result = await run(
            sandboxed(isolation),
            `id -u; cat /etc/shadow ${etcCanary}; cat /dev/shm/*; echo written > mine.txt && cat mine.txt; ` +
              'echo "== etc"; ls -A /etc; echo "== dev"; ls -A /dev; echo "== shm"; ls -A /dev/shm; echo "== passwd"; cat /etc/passwd; echo "== sys"; grep " /sys " /proc/self/mountinfo | cut -d " " -f 6; echo "== end"',
          );
          const lines = result.output.split('\n');
          const section = (name: string): string[] => {
            const start = lines.indexOf(`== ${name}`) + 1;
            return lines.slice(
              start,
              lines.findIndex((line, i) => i >= start && line.startsWith('== ')),
            );
          };
          expect(result.output).not.toContain(CANARY);
          expect(result.output).toContain('/etc/shadow: No such file or directory');
          expect(result.output).toContain(`${etcCanary}: No such file or directory`);
          expect(result.output).toContain('written');
          if (root) expect(result.output.split('\n')[0]).not.toBe('0');
          // /etc: only allow-listed entries (python3.11 and java-17-openjdk by pattern), and what programs need is there.
          const allowed = [...ETC_ENTRIES.map((entry) => entry.split('/')[0]), 'passwd', 'group'];
          expect(section('etc').filter((name) => !allowed.includes(name) && !/^(python3(\.\d+)?|java-\d+-openjdk)$/.test(name))).toEqual([]);
          expect(section('etc')).toEqual(
            expect.arrayContaining(['hosts', 'resolv.conf', 'nsswitch.conf', 'ssl', 'ld.so.cache', 'passwd', 'group', 'localtime']),
          );
          // passwd names root and the sandbox user only (the tool itself, uid 0 in its user namespace when not run as root).
          expect(section('passwd').every((line) => /^(root|sandbox):x:/.test(line))).toBe(true);
          if (root) expect(section('passwd')).toContain(`sandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:hermes tool sandbox:/tmp:/bin/sh`);
          // /dev: exactly the sandbox's own nodes and links, not the host's disks, consoles or its shared memory.
          expect(section('dev').sort()).toEqual([...DEV_NODES, ...DEV_LINKS.map((link) => link.name), 'pts', 'shm'].sort());
          expect(section('shm')).toEqual([]);
          // /sys: the host's, read-only.
          expect(section('sys')).toEqual([expect.stringMatching(/^ro,/)]);
        } finally {
          rmSync('/dev/shm/hermes-host-shm-canary', { force: true });
          rmSync(etcCanary, { force: true });
        }
      });

      it('runs the usual tools in that view: python3, node, git, grep, TLS certificates, a pty, the devices', async () => {
        const result = await run(
          sandboxed(isolation),
          [
            `python3 -c 'import ssl; print("python", ssl.create_default_context().cert_store_stats()["x509"] > 0)'`,
            `node -e 'console.log("node", require("tls").rootCertificates.length > 0, require("os").userInfo().username)'`,
            'test -s /etc/ssl/certs/ca-certificates.crt && echo certs',
            'git init -q repo && cd repo && echo hello > a.txt && git add a.txt && git -c user.name=t -c user.email=t@example.com commit -qm one && git log --format=%s && cd ..',
            'printf "one\ntwo\n" | grep -c o',
            `python3 -c 'import os, pty; m, s = pty.openpty(); print("pty", os.ttyname(s))'`,
            'echo discarded > /dev/null && head -c 8 /dev/urandom | wc -c && head -c 4 /dev/zero | wc -c',
            // Shared memory the sandbox user may use: python's multiprocessing makes its locks in /dev/shm.
            `echo shared > /dev/shm/mine && cat /dev/shm/mine && python3 -c 'import multiprocessing; multiprocessing.Lock(); print("lock")'`,
            'date +%Z',
          ].join(' && '),
        );
        expect(result).toMatchObject({ exit_code: 0, error: null });
        expect(result.output).toMatch(/^python True\nnode true \w+\ncerts\none\n2\npty \/dev\/pts\/\d+\n8\n4\nshared\nlock\n\w+$/);
      });
    });
  }
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
        // /etc/hostname is no entry of the sandbox's /etc, so there is nothing to hide; /etc/ssl/certs is one.
        // The time zone's file shows twice: in /usr, and as /etc/localtime, which leads to it.
        hide: ['/usr/share/hermes.env', '/etc/hostname', '/etc/ssl/certs/hermes.env', realpathSync('/etc/localtime'), join(home, '.env')],
        workspaceRoot: '/usr/hermes-workspaces',
      });
      expect(shown.hidden).toEqual(['/usr/share/hermes.env', '/etc/ssl/certs/hermes.env', realpathSync('/etc/localtime'), '/etc/localtime']);
      expect(shown.empty).toEqual(expect.arrayContaining(['/tmp', home, '/usr/hermes-workspaces']));
      expect(shown.system).toContain('/usr');
      expect(shown.system).not.toContain('/home');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('shows of /etc only the allow-listed entries that exist, each at its own path with the real file behind it', () => {
    const { etc } = sandboxFilesystem({ env: { PATH: '/usr/bin' } });
    const secret = ['/etc/shadow', '/etc/gshadow', '/etc/gitconfig', '/etc/npmrc', '/etc/pip.conf', '/etc/hostname', '/etc/ssh', '/etc/passwd'];
    expect(etc.filter((entry) => secret.includes(entry.path))).toEqual([]);
    expect(etc.map((entry) => entry.path)).toEqual(expect.arrayContaining(['/etc/hosts', '/etc/ssl/certs', '/etc/ld.so.cache']));
    // A link is shown as what it leads to (the time zone's file), which the sandbox binds at the link's place.
    expect(etc.find((entry) => entry.path === '/etc/localtime')).toEqual({ path: '/etc/localtime', source: realpathSync('/etc/localtime'), directory: false });
    expect(etc.find((entry) => entry.path === '/etc/ssl/certs')).toMatchObject({ directory: true });
    expect(etc.every((entry) => statSync(entry.source, { throwIfNoEntry: false }) !== undefined)).toBe(true);
  });

  it('leaves a HOME that does not exist missing (a mount point for it cannot be made on the host)', () => {
    expect(sandboxFilesystem({ env: { PATH: '/usr/bin', HOME: '/nonexistent' } }).empty).not.toContain('/nonexistent');
  });
});
