// Where terminal commands and code run. By default in a PID and mount namespace of their own, so a
// tool process sees no other process of the user: not hermes-generate (whose environment holds the
// API key), not the shell that started it, not the user's other programs. `/proc/<pid>/environ`,
// `ps e` and `/proc/*/environ` show only the tool's own processes. The filesystem is the host's (the
// tools need the host's interpreters and compilers); the workspace stays the command's cwd, and the
// file tools' path confinement is unchanged. The namespace also contains what leaves the process
// group: when the command's first process ends, the kernel kills every process left in its namespace.
//
//   bwrap    bubblewrap (Debian package `bubblewrap`, the sandbox Flatpak uses); works unprivileged.
//   unshare  util-linux unshare; as a non-root user in a user namespace that maps the user to itself.
//   docker   the row's docker_image, without network (docker.ts): also a filesystem of its own.
//   none     commands run as plain processes of the user (they can read other processes' /proc).
//
// `auto` (the default) takes the first of bwrap and unshare that works on this machine, tried once at
// start-up with a real command, and none (with a warning) when neither does.
import { spawnSync } from 'node:child_process';

export const SANDBOX_MODES = ['auto', 'none', 'bwrap', 'unshare', 'docker'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** How a host command is run: the namespace wrapper in use, or none. */
export type HostIsolation = 'none' | 'bwrap' | 'unshare';

export const SANDBOX_HELP =
  'auto (default): bwrap when it works here, else unshare, else none; bwrap/unshare: own PID and mount namespace ' +
  '(no other process visible); docker: the row\'s docker_image without network; none: plain host processes';

/** The program and arguments that run `file args` inside the isolation, with cwd as its directory. */
export function isolatedCommand(isolation: HostIsolation, file: string, args: readonly string[], cwd: string): { file: string; args: string[] } {
  switch (isolation) {
    case 'none':
      return { file, args: [...args] };
    case 'bwrap':
      return {
        file: 'bwrap',
        // The host's filesystem as it is (--bind / / then the real /dev), a fresh /proc of the new PID namespace.
        args: ['--bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--chdir', cwd, '--', file, ...args],
      };
    case 'unshare':
      return {
        file: 'unshare',
        // --kill-child: the command dies with unshare, which the process group kill reaches.
        args: [...(isRoot() ? [] : ['--map-current-user']), '--pid', '--fork', '--mount', '--mount-proc', '--kill-child', '--', file, ...args],
      };
  }
}

/** Whether the isolation runs a real command on this machine (the program is there, namespaces are allowed). */
export function isolationWorks(isolation: Exclude<HostIsolation, 'none'>, env: Readonly<Record<string, string>>): boolean {
  const cwd = process.cwd();
  const probe = isolatedCommand(isolation, '/bin/sh', ['-c', 'exit 0'], cwd);
  const result = spawnSync(probe.file, probe.args, { cwd, env, stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}

export interface ChosenSandbox {
  /** What host commands run in ('none' under docker, where docker.ts runs them). */
  readonly host: HostIsolation;
  readonly docker: boolean;
  /** One line for the start-up log. */
  readonly description: string;
  /** Set when auto found no namespace sandbox. */
  readonly warning?: string;
}

/** The sandbox for this run, or a message when the one asked for cannot run here (a usage error). */
export function chooseSandbox(mode: SandboxMode, env: Readonly<Record<string, string>>): ChosenSandbox | string {
  if (mode === 'docker') return { host: 'none', docker: true, description: "tool commands run in each row's docker_image (--sandbox docker)" };
  if (mode === 'none') return { host: 'none', docker: false, description: 'tool commands run as plain host processes (--sandbox none): they can see your other processes' };
  const candidates: Exclude<HostIsolation, 'none'>[] = mode === 'auto' ? ['bwrap', 'unshare'] : [mode];
  for (const isolation of candidates) {
    if (isolationWorks(isolation, env)) {
      return { host: isolation, docker: false, description: `tool commands run in their own PID and mount namespace (--sandbox ${isolation}${mode === 'auto' ? ', chosen by auto' : ''})` };
    }
  }
  if (mode !== 'auto') return unavailableMessage(mode);
  return {
    host: 'none',
    docker: false,
    description: 'tool commands run as plain host processes (--sandbox auto found neither bwrap nor unshare working)',
    warning: 'no namespace sandbox works here (install bubblewrap: apt-get install bubblewrap), so tool commands can see your other processes and their environments; pass --sandbox none to accept that',
  };
}

function unavailableMessage(mode: 'bwrap' | 'unshare'): string {
  const install = mode === 'bwrap' ? 'install bubblewrap (apt-get install bubblewrap)' : 'install util-linux, or allow user namespaces';
  return `--sandbox ${mode} cannot run a command on this machine; ${install}, or choose another --sandbox (auto picks what works)`;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}
