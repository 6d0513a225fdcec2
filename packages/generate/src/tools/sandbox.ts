// Where terminal commands and code run. By default in a PID and mount namespace of their own, so a
// tool process sees no other process of the user: not hermes-generate (whose environment holds the
// API key), not the shell that started it, not the user's other programs. `/proc/<pid>/environ`,
// `ps e` and `/proc/*/environ` show only the tool's own processes. Nor does it see the user's files:
// the filesystem is an allow-list (sandboxFilesystem.ts): the system directories read-only, its own
// workspace read-write as its cwd, and private empty /tmp, /home, /root, /run and $HOME; the
// --env-file and --config are hidden. The file tools' path confinement is unchanged. The namespace
// also contains what leaves the process group: when the command's first process ends, the kernel
// kills every process left in its namespace.
//
//   bwrap    bubblewrap (Debian package `bubblewrap`, the sandbox Flatpak uses); works unprivileged.
//            The tool gets a new root that holds only what is shown, and a minimal /dev.
//   unshare  util-linux unshare; as a non-root user in a user namespace whose root is the user (the
//            tool runs as uid 0 there, with the user's rights outside). Keeps the host's root and
//            covers every other top-level directory with an empty one (mount -a from a small fstab
//            written at start-up), then drops every capability; /dev stays the host's.
//   docker   the row's docker_image, without network (docker.ts): also a filesystem of its own.
//   none     commands run as plain processes of the user (they can read other processes' /proc and
//            every file the user can).
//
// `auto` (the default) takes the first of bwrap and unshare that works on this machine, tried once at
// start-up with a real command, and none (with a warning) when neither does. What the sandbox shows
// is worked out when the first tool command starts (sandboxFilesystem.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { coverTopLevel, sandboxFilesystem, type SandboxFilesystem } from './sandboxFilesystem.js';

export const SANDBOX_MODES = ['auto', 'none', 'bwrap', 'unshare', 'docker'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** How a host command is run: the namespace wrapper in use, or none. */
export type HostIsolation = 'none' | 'bwrap' | 'unshare';

export const SANDBOX_HELP =
  'auto (default): bwrap when it works here, else unshare, else none; bwrap/unshare: own PID and mount namespace ' +
  '(no other process visible; only the system directories read-only, the workspace, and empty /tmp, /home, /root, /run ' +
  "and $HOME: no file of yours, no other workspace, not the --env-file or --config); docker: the row's docker_image " +
  'without network; none: plain host processes that can read all your files';

/** Runs host commands in one isolation: the wrapper's fixed part is built once, a call adds its workspace. */
export interface HostSandbox {
  readonly isolation: HostIsolation;
  /** The program and arguments that run `file args` inside the isolation, with cwd as its directory. */
  command(file: string, args: readonly string[], cwd: string): { file: string; args: string[] };
  /** The environment the tool gets inside (PATH first finds the interpreters shown outside the system dirs). */
  env(env: Readonly<Record<string, string>>): Record<string, string>;
}

/**
 * The sandbox for `isolation` over `filesystem` (default: what sandboxFilesystem shows for these tool
 * variables), given as such or as a function that computes it. Either is taken, and the wrapper's
 * fixed part built, when the first command or environment is asked for, so a run that starts no
 * tool command pays nothing. For unshare, its fstab is written to a private temporary directory,
 * removed at exit.
 */
export function hostSandbox(
  isolation: HostIsolation,
  filesystem?: SandboxFilesystem | (() => SandboxFilesystem),
  env: Readonly<Record<string, string>> = {},
): HostSandbox {
  if (isolation === 'none') return { isolation, command: (file, args) => ({ file, args: [...args] }), env: (e) => ({ ...e }) };
  let prepared: { readonly shown: SandboxFilesystem; readonly fixed: readonly string[] } | undefined;
  const prepare = (): { readonly shown: SandboxFilesystem; readonly fixed: readonly string[] } => {
    if (prepared) return prepared;
    const shown = typeof filesystem === 'function' ? filesystem() : (filesystem ?? sandboxFilesystem({ env }));
    prepared = { shown, fixed: isolation === 'bwrap' ? bwrapArgs(shown) : unshareArgs(coverTopLevel(shown), env['PATH'] ?? '') };
    return prepared;
  };
  const withPath = (e: Readonly<Record<string, string>>): Record<string, string> => {
    const { interpreters } = prepare().shown;
    return interpreters.length === 0
      ? { ...e }
      : { ...e, PATH: [...interpreters.map((dir) => join(dir, 'bin')), ...(e['PATH'] ? [e['PATH']] : [])].join(delimiter) };
  };
  if (isolation === 'bwrap') {
    return {
      isolation,
      env: withPath,
      command: (file, args, cwd) => ({ file: 'bwrap', args: [...prepare().fixed, '--bind', cwd, cwd, '--chdir', cwd, '--', file, ...args] }),
    };
  }
  return { isolation, env: withPath, command: (file, args, cwd) => ({ file: 'unshare', args: [...prepare().fixed, cwd, file, ...args] }) };
}

function bwrapArgs(shown: SandboxFilesystem): string[] {
  return [
    '--unshare-pid',
    '--die-with-parent',
    // As root, bwrap would keep every capability: a tool could mount, or read any file.
    ...(isRoot() ? ['--cap-drop', 'ALL'] : []),
    ...shown.links.flatMap((link) => ['--symlink', link.target, link.path]),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--ro-bind-try',
    '/sys',
    '/sys',
    ...shown.empty.flatMap((dir) => ['--tmpfs', dir]),
    // After the empty ones: an interpreter under ~ is bound back into the empty home.
    ...[...shown.system, ...shown.interpreters].flatMap((dir) => ['--ro-bind', dir, dir]),
    // Not /dev/null: bwrap's binds are nodev, and a device there would only say "Permission denied".
    ...shown.hidden.flatMap((file) => ['--ro-bind', emptyFile(), file]),
  ];
}

/**
 * unshare runs a small sh script as the namespace's first process: `mount -a` of an fstab that binds
 * the system directories read-only, covers the others with empty tmpfs and hides files; then the
 * interpreter prefixes and the workspace (opened before the cover hid them) are bound back, and the
 * command is run without any capability ($1 is the workspace, the rest the command).
 */
function unshareArgs(shown: SandboxFilesystem, path: string): string[] {
  // Found once, by absolute path: the tool's PATH is the tool's, and a PATH without them must not break the sandbox.
  const mount = shellQuote(findProgram('mount', path));
  const setpriv = shellQuote(findProgram('setpriv', path));
  const prefixes = shown.interpreters;
  // The empty ones first: mount records what it did under /run, which is then the sandbox's own.
  const fstab = `${[
    ...shown.empty.map((dir) => `tmpfs ${fstabPath(dir)} tmpfs mode=${dir === '/tmp' || dir === '/var/tmp' ? '1777' : '755'},X-mount.mkdir 0 0`),
    ...shown.system.map((dir) => `${fstabPath(dir)} ${fstabPath(dir)} none rbind,ro 0 0`),
    // /dev/null: the private directory's empty file lies under /tmp, covered by now.
    ...shown.hidden.map((file) => `/dev/null ${fstabPath(file)} none bind,ro 0 0`),
  ].join('\n')}\n`;
  const file = join(privateDirectory(), 'sandbox.fstab');
  writeFileSync(file, fstab, { mode: 0o600 });
  const openPrefixes = prefixes.map((dir, i) => `exec ${i + 3}<${shellQuote(dir)}`);
  const bindPrefixes = prefixes.map((dir, i) => `${mount} -c --bind -o X-mount.mkdir,ro /proc/self/fd/${i + 3} ${shellQuote(dir)} && exec ${i + 3}<&-`);
  const script = [
    'cd "$1"',
    ...openPrefixes,
    `${mount} -a -T ${shellQuote(file)}`,
    ...bindPrefixes,
    `${mount} -c --bind -o X-mount.mkdir . "$1"`,
    'cd "$1"',
    'shift',
    `exec ${setpriv} --bounding-set -all --inh-caps -all --no-new-privs -- "$@"`,
  ].join(' && ');
  // As a non-root user, only the root of a user namespace may mount: the user, mapped to uid 0 in it.
  // --kill-child: the command dies with unshare, which the process group kill reaches.
  return [
    ...(isRoot() ? [] : ['--map-root-user']),
    '--pid',
    '--fork',
    '--mount',
    '--mount-proc',
    '--kill-child',
    '--',
    '/bin/sh',
    '-c',
    script,
    'hermes-sandbox',
  ];
}

/** The program on PATH or in the system directories; its bare name (an error at run time) when nowhere. */
function findProgram(name: string, path: string): string {
  for (const dir of [...path.split(delimiter), '/usr/bin', '/usr/sbin', '/bin', '/sbin']) {
    if (dir.startsWith('/') && existsSync(join(dir, name))) return join(dir, name);
  }
  return name;
}

let privateDir: string | undefined;
/** One directory of this process only, removed when it exits. */
function privateDirectory(): string {
  if (privateDir !== undefined) return privateDir;
  const dir = mkdtempSync(join(tmpdir(), 'hermes-sandbox-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  privateDir = dir;
  return dir;
}

/** An empty file that hidden files are replaced by. */
function emptyFile(): string {
  const file = join(privateDirectory(), 'empty');
  writeFileSync(file, '', { mode: 0o444 });
  return file;
}

/** fstab fields are split on white space: octal escapes, as fstab(5) says. */
function fstabPath(path: string): string {
  return path.replace(/[\s\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Whether the sandbox runs a real command on this machine (the program is there, namespaces and mounts are allowed). */
export function isolationWorks(sandbox: HostSandbox, env: Readonly<Record<string, string>>): boolean {
  const cwd = mkdtempSync(join(tmpdir(), 'hermes-sandbox-probe-'));
  try {
    const probe = sandbox.command('/bin/sh', ['-c', 'exit 0'], cwd);
    const result = spawnSync(probe.file, probe.args, { cwd, env: sandbox.env(env), stdio: 'ignore', timeout: 10_000 });
    return result.error === undefined && result.status === 0;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export interface ChosenSandbox {
  /** What host commands run in (isolation 'none' under docker, where docker.ts runs them). */
  readonly host: HostSandbox;
  readonly docker: boolean;
  /** One line for the start-up log. */
  readonly description: string;
  /** Set when auto found no namespace sandbox. */
  readonly warning?: string;
}

export interface SandboxChoiceOptions {
  /** Files that hold secrets (--env-file, --config), hidden from tools where they would be visible. */
  readonly hide?: readonly string[];
  /** The run's workspace root: other prompts' workspaces are never shown. */
  readonly workspaceRoot?: string;
}

/** The sandbox for this run, or a message when the one asked for cannot run here (a usage error). */
export function chooseSandbox(mode: SandboxMode, env: Readonly<Record<string, string>>, options: SandboxChoiceOptions = {}): ChosenSandbox | string {
  const plain = hostSandbox('none');
  if (mode === 'docker') return { host: plain, docker: true, description: "tool commands run in each row's docker_image (--sandbox docker)" };
  if (mode === 'none')
    return {
      host: plain,
      docker: false,
      description: 'tool commands run as plain host processes (--sandbox none): they can see your other processes and read your files',
    };
  // The check runs /bin/sh, which needs no interpreter; the sandbox the tools get finds them when its first command starts.
  const probed = sandboxFilesystem({ env, ...options, findInterpreters: false });
  const candidates: Exclude<HostIsolation, 'none'>[] = mode === 'auto' ? ['bwrap', 'unshare'] : [mode];
  for (const isolation of candidates) {
    if (isolationWorks(hostSandbox(isolation, probed, env), env)) {
      return {
        host: hostSandbox(isolation, () => sandboxFilesystem({ env, ...options }), env),
        docker: false,
        description: `tool commands run in their own PID and mount namespace, seeing only the system directories, their workspace and empty /tmp and home (--sandbox ${isolation}${mode === 'auto' ? ', chosen by auto' : ''})`,
      };
    }
  }
  if (mode !== 'auto') return unavailableMessage(mode);
  return {
    host: plain,
    docker: false,
    description: 'tool commands run as plain host processes (--sandbox auto found neither bwrap nor unshare working)',
    warning:
      'no namespace sandbox works here (install bubblewrap: apt-get install bubblewrap), so tool commands can see your other processes, their environments and your files; pass --sandbox none to accept that',
  };
}

function unavailableMessage(mode: 'bwrap' | 'unshare'): string {
  const install =
    mode === 'bwrap' ? 'install bubblewrap (apt-get install bubblewrap)' : 'install util-linux (unshare, mount, setpriv), or allow user namespaces';
  return `--sandbox ${mode} cannot run a command on this machine; ${install}, or choose another --sandbox (auto picks what works)`;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}
