// Where terminal commands and code run. By default in a PID and mount namespace of their own, so a
// tool process sees no other process of the user: not hermes-generate (whose environment holds the
// API key), not the shell that started it, not the user's other programs. `/proc/<pid>/environ`,
// `ps e` and `/proc/*/environ` show only the tool's own processes. Nor does it see the user's files:
// the filesystem is an allow-list (sandboxFilesystem.ts): the system directories read-only, its own
// workspace read-write as its cwd, and private empty /tmp, /home, /root, /run and $HOME; the
// --env-file and --config are hidden. The file tools' path confinement is unchanged. The namespace
// also contains what leaves the process group: when the command's first process ends, the kernel
// kills every process left in its namespace. Both also give the tool a network namespace of its own
// with only a loopback (no route to the user's 127.0.0.1 services, the model endpoint included;
// --tool-network shares the host's instead), bound its processes' count, memory and CPU time
// (a cgroup per prompt where the machine allows it, else rlimits set inside the sandbox's own user
// namespace: toolLimits.ts),
// and run it as an unprivileged uid (SANDBOX_UID) when hermes-generate runs as root.
//
//   bwrap    bubblewrap (Debian package `bubblewrap`, the sandbox Flatpak uses); works unprivileged.
//            The tool gets a new root that holds only what is shown, and bwrap's private /dev.
//   unshare  util-linux unshare; as a non-root user in a user namespace whose root is the user (the
//            tool runs as uid 0 there, with the user's rights outside). Keeps the host's root, mounts
//            an /etc and a /dev of its own over the host's and covers every other top-level directory
//            with an empty one (mount -a of an fstab written at start-up: unshareFstab.ts), then drops
//            every capability.
//   docker   the row's docker_image, without network (docker.ts): also a filesystem of its own.
//   none     commands run as plain processes of the user (they can read other processes' /proc and
//            every file the user can).
//
// bwrap and unshare show the same /etc (only the entries programs need, ETC_ENTRIES, and passwd/group naming
// just root and the sandbox user) and the same /dev (DEV_NODES, DEV_LINKS, pts and an empty shm).
//
// `auto` (the default) takes the first of bwrap and unshare that works on this machine, tried once at
// start-up with a real command, and none (with a warning) when neither does. What the sandbox shows
// is worked out when the first tool command starts (sandboxFilesystem.ts).
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { isAlive } from '../processAlive.js';
import { coverTopLevel, etcDirectories, sandboxAccounts, sandboxFilesystem, type EtcEntry, type SandboxFilesystem } from './sandboxFilesystem.js';
import { unshareFstab } from './unshareFstab.js';
import { limitsMechanism, type CgroupLayout } from './promptCgroups.js';
import { DEFAULT_TOOL_LIMITS, formatSize, rlimitArgs, type ToolLimits } from './toolLimits.js';

export const SANDBOX_MODES = ['auto', 'none', 'bwrap', 'unshare', 'docker'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** How a host command is run: the namespace wrapper in use, or none. */
export type HostIsolation = 'none' | 'bwrap' | 'unshare';

export const SANDBOX_HELP =
  'auto (default): bwrap when it works here, else unshare, else none; bwrap/unshare: own PID and mount namespace ' +
  '(no other process visible; only the system directories read-only, an /etc of only what programs need, a private /dev, ' +
  'the workspace, and empty /tmp, /home, /root, /run and $HOME: no file of yours, no other workspace, not the --env-file ' +
  "or --config; no network, bounded resources); docker: the row's docker_image without network; none: plain host processes " +
  'that can read all your files';

/**
 * The uid and gid tool processes run as when hermes-generate runs as root (nobody's, on Debian): a
 * root tool could read any file the sandbox shows (/etc/shadow) and no process limit binds root.
 */
export const SANDBOX_UID = 65534;

/**
 * What of hermes-generate's environment the sandbox itself uses, never the tools: PATH finds bwrap,
 * unshare, mount, setpriv, prlimit and the interpreters; HOME is covered with an empty directory.
 */
export function hostProgramsEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries((['PATH', 'HOME'] as const).flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}

/** What a namespace sandbox lets tools do beyond their workspace. */
export interface SandboxPolicy {
  /** true: tools share the host's network (--tool-network); false: a network namespace with only loopback. */
  readonly network: boolean;
  /** Bounds on every tool process (--tool-max-procs, --tool-memory, --tool-cpu-seconds). */
  readonly limits: ToolLimits;
  /** Where a cgroup per prompt bounds processes and memory (promptCgroups.ts): the rlimits bound only CPU time. */
  readonly cgroups?: CgroupLayout | undefined;
}

export const DEFAULT_SANDBOX_POLICY: SandboxPolicy = { network: false, limits: DEFAULT_TOOL_LIMITS };

/** Runs host commands in one isolation: the wrapper's fixed part is built once, a call adds its workspace. */
export interface HostSandbox {
  readonly isolation: HostIsolation;
  /**
   * The uid and gid tool processes run as when they differ from this process's (SANDBOX_UID under
   * root): what the workspace and the files the file tools write must belong to.
   */
  readonly owner: { readonly uid: number; readonly gid: number } | undefined;
  /** The bounds its processes run under; undefined where none are set (none, or no prlimit here). */
  readonly limits: ToolLimits | undefined;
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
  policy: SandboxPolicy = DEFAULT_SANDBOX_POLICY,
): HostSandbox {
  if (isolation === 'none')
    return { isolation, owner: undefined, limits: undefined, command: (file, args) => ({ file, args: [...args] }), env: (e) => ({ ...e }) };
  const path = env['PATH'] ?? '';
  const owner = isRoot() ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : undefined;
  const limits = rlimitArgs(policy.limits, findProgram('prlimit', path), policy.cgroups !== undefined);
  // Under root, the command drops to the sandbox user once the sandbox is set up, in a user namespace
  // of its own: Linux never applies RLIMIT_NPROC to root, and counts it per user namespace.
  const dropToUser =
    owner === undefined
      ? []
      : [
          findProgram('setpriv', path),
          `--reuid=${owner.uid}`,
          `--regid=${owner.gid}`,
          '--clear-groups',
          '--bounding-set',
          '-all',
          '--inh-caps',
          '-all',
          '--no-new-privs',
          '--',
          // Inside the sandbox, where only the system directories are.
          findProgram('unshare', ''),
          '--user',
          '--map-current-user',
          '--',
        ];
  const inside = [...dropToUser, ...limits];
  // Not looked for in the system directories: a PATH without it is a sandbox that cannot run ("not found").
  const wrapper = findProgram(isolation, path, false);
  let prepared: { readonly shown: SandboxFilesystem; readonly fixed: readonly string[] } | undefined;
  const prepare = (): { readonly shown: SandboxFilesystem; readonly fixed: readonly string[] } => {
    if (prepared) return prepared;
    const found = typeof filesystem === 'function' ? filesystem() : (filesystem ?? sandboxFilesystem({ env }));
    // An interpreter only root may read (a 0700 prefix) is of no use to the sandbox user.
    const shown = owner === undefined ? found : { ...found, interpreters: found.interpreters.filter(othersMayRead) };
    prepared = {
      shown,
      fixed:
        isolation === 'bwrap'
          ? bwrapArgs(shown, policy, owner?.uid ?? process.getuid?.() ?? 0)
          : unshareArgs(coverTopLevel(shown), path, policy, inside, owner?.uid ?? 0),
    };
    return prepared;
  };
  // The workspace is made by this process: the sandbox user must be able to write in it.
  const own = (cwd: string): void => {
    if (owner !== undefined) chownSync(cwd, owner.uid, owner.gid);
  };
  const withPath = (e: Readonly<Record<string, string>>): Record<string, string> => {
    const { interpreters } = prepare().shown;
    return interpreters.length === 0
      ? { ...e }
      : { ...e, PATH: [...interpreters.map((dir) => join(dir, 'bin')), ...(e['PATH'] ? [e['PATH']] : [])].join(delimiter) };
  };
  const common = { isolation, owner, limits: limits.length === 0 ? undefined : policy.limits, env: withPath };
  if (isolation === 'bwrap') {
    return {
      ...common,
      command: (file, args, cwd) => {
        own(cwd);
        const { shown, fixed } = prepare();
        return { file: wrapper, args: [...fixed, ...openParents(cwd, shown.empty), '--bind', cwd, cwd, '--chdir', cwd, '--', ...inside, file, ...args] };
      },
    };
  }
  return {
    ...common,
    command: (file, args, cwd) => {
      own(cwd);
      return { file: wrapper, args: [...prepare().fixed, cwd, file, ...args] };
    },
  };
}

/**
 * The directories bwrap makes above the workspace inside an empty one (/tmp/hermes-generate-1/ under
 * /tmp) are root's only (0700): made as on the host, so `ls ..` shows an empty directory, not an error.
 */
function openParents(cwd: string, empty: readonly string[]): string[] {
  const base = empty.filter((dir) => cwd.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length)[0];
  if (base === undefined) return [];
  const parents: string[] = [];
  for (let dir = dirname(cwd); dir.length > base.length; dir = dirname(dir)) parents.unshift(dir);
  return parents.flatMap((dir) => ['--perms', '0755', '--dir', dir]);
}

/** The sandbox's /etc under bwrap: the shown entries bound read-only, and its own passwd and group. */
function bwrapEtcArgs(etc: readonly EtcEntry[], uid: number): string[] {
  const { passwd, group } = sandboxAccounts(uid);
  return [
    // The directories bwrap would make for a nested entry are root's only (0700): made readable first.
    ...etcDirectories(etc).flatMap((dir) => ['--perms', '0755', '--dir', dir]),
    ...etc.flatMap((entry) => ['--ro-bind', entry.source, entry.path]),
    ...['--ro-bind', privateFile('passwd', passwd), '/etc/passwd', '--ro-bind', privateFile('group', group), '/etc/group'],
  ];
}

function bwrapArgs(shown: SandboxFilesystem, policy: SandboxPolicy, uid: number): string[] {
  return [
    // Explicit, though bwrap makes one whenever it runs unprivileged: the rlimits count in it. Under
    // root the command makes its own as the sandbox user (dropToUser), and bwrap keeps the capabilities that needs.
    ...(isRoot() ? [] : ['--unshare-user']),
    '--unshare-pid',
    '--unshare-ipc',
    ...(policy.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    ...shown.links.flatMap((link) => ['--symlink', link.target, link.path]),
    '--dev',
    '/dev',
    // bwrap's /dev/shm is a directory of root's: shared memory (python's multiprocessing) for the sandbox user too.
    ...['--perms', '1777', '--tmpfs', '/dev/shm'],
    '--proc',
    '/proc',
    '--ro-bind-try',
    '/sys',
    '/sys',
    // /tmp and /var/tmp for everyone, as on the host (the sandbox user under root is not their owner).
    ...shown.empty.flatMap((dir) => (dir === '/tmp' || dir === '/var/tmp' ? ['--perms', '1777', '--tmpfs', dir] : ['--tmpfs', dir])),
    // After the empty ones: an interpreter under ~ is bound back into the empty home.
    ...[...shown.system, ...shown.interpreters].flatMap((dir) => ['--ro-bind', dir, dir]),
    ...bwrapEtcArgs(shown.etc, uid),
    // Not /dev/null: bwrap's binds are nodev, and a device there would only say "Permission denied".
    ...shown.hidden.flatMap((file) => ['--ro-bind', emptyFile(), file]),
  ];
}

/**
 * unshare runs a small sh script as the namespace's first process: `mount -a` of an fstab
 * (unshareFstab.ts) that gives it its own /etc and /dev, covers what is not shown with empty tmpfs,
 * binds the system directories read-only and hides files; then the interpreter prefixes and the
 * workspace (opened before the cover hid them) are bound back, and the command is run without any
 * capability ($1 is the workspace, the rest the command). `uid` is the tools' uid inside.
 */
function unshareArgs(shown: SandboxFilesystem, path: string, policy: SandboxPolicy, inside: readonly string[], uid: number): string[] {
  // Found once, by absolute path: the tool's PATH is the tool's, and a PATH without them must not break the sandbox.
  const mount = shellQuote(findProgram('mount', path));
  const setpriv = shellQuote(findProgram('setpriv', path));
  const ip = findProgram('ip', path);
  const prefixes = shown.interpreters;
  // A directory of this sandbox's own: the probe's sandbox and the tools' each build their trees.
  const dir = mkdtempSync(join(privateDirectory(), 'unshare-'));
  chmodSync(dir, 0o711);
  const file = join(dir, 'sandbox.fstab');
  // Read by mount, before the command drops to the sandbox user: it holds only paths.
  writeFileSync(file, unshareFstab(shown, uid, dir), { mode: 0o644 });
  const openPrefixes = prefixes.map((dir, i) => `exec ${i + 3}<${shellQuote(dir)}`);
  const bindPrefixes = prefixes.map((dir, i) => `${mount} -c --bind -o X-mount.mkdir,ro /proc/self/fd/${i + 3} ${shellQuote(dir)} && exec ${i + 3}<&-`);
  const script = [
    'cd "$1"',
    ...openPrefixes,
    // --no-mtab: the first mounts come before /run is covered, and nothing of them belongs in the host's /run/mount.
    `${mount} --no-mtab -a -T ${shellQuote(file)}`,
    // /sys as bwrap shows it, read-only (mount -a takes a bind of /sys onto itself as done already).
    `${mount} --no-mtab -o remount,bind,ro /sys`,
    ...bindPrefixes,
    `${mount} -c --bind -o X-mount.mkdir . "$1"`,
    // A new network namespace starts with its loopback down; without ip(8) it stays so (no network at all).
    ...(policy.network || !ip.startsWith('/') ? [] : [`{ ${shellQuote(ip)} link set lo up 2>/dev/null || true; }`]),
    'cd "$1"',
    'shift',
    // Under root, `inside` starts with its own setpriv, which needs CAP_SETUID still: it drops every capability itself.
    // Not exec'd: the namespace's first process ignores signals it has no handler for, so the command
    // would never get SIGXCPU at its CPU limit; sh waits and exits as the command did.
    `${isRoot() ? '' : `${setpriv} --bounding-set -all --inh-caps -all --no-new-privs -- `}${inside.map(shellQuote).join(' ')} "$@"`,
  ].join(' && ');
  // As a non-root user, only the root of a user namespace may mount: the user, mapped to uid 0 in it.
  // --kill-child: the command dies with unshare, which the process group kill reaches.
  return [
    ...(isRoot() ? [] : ['--map-root-user']),
    ...(policy.network ? [] : ['--net']),
    '--ipc',
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

/** The program on PATH or (unless told not to look there) in the system directories; its bare name (an error at run time) when nowhere. */
function findProgram(name: string, path: string, systemDirs = true): string {
  for (const dir of [...path.split(delimiter), ...(systemDirs ? ['/usr/bin', '/usr/sbin', '/bin', '/sbin'] : [])]) {
    if (dir.startsWith('/') && existsSync(join(dir, name))) return join(dir, name);
  }
  return name;
}

/** The temp directories of the sandbox carry their process's pid: `hermes-sandbox-[probe-]<pid>-<random>`. */
const SANDBOX_DIR_PREFIX = 'hermes-sandbox-';
const SANDBOX_DIR = /^hermes-sandbox-(?:probe-)?(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Removes from `dir` (the temp directory) the sandbox directories of processes that are gone: a
 * SIGKILL leaves them, since only a process's exit removes its own. Only directories of this user,
 * named as this module names them, whose pid no longer runs here; returns how many went.
 */
export function removeDeadSandboxDirs(dir: string = tmpdir()): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const pid = SANDBOX_DIR.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    const path = join(dir, name);
    try {
      const info = lstatSync(path);
      if (!info.isDirectory() || info.uid !== process.getuid?.()) continue;
      rmSync(path, { recursive: true, force: true });
      removed += 1;
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}

let privateDir: string | undefined;
/** One directory of this process only, removed when it exits; the sandbox user may look up its files, not list them. */
function privateDirectory(): string {
  if (privateDir !== undefined) return privateDir;
  const dir = mkdtempSync(join(tmpdir(), `${SANDBOX_DIR_PREFIX}${process.pid}-`));
  chmodSync(dir, 0o711);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  privateDir = dir;
  return dir;
}

/** A file of the private directory with this text, readable by the sandbox (whatever the umask). */
function privateFile(name: string, text: string): string {
  const file = join(privateDirectory(), name);
  // Renamed into place: an earlier sandbox's file is read-only, and may be in use by its commands.
  const next = `${file}.${process.hrtime.bigint()}`;
  writeFileSync(next, text);
  chmodSync(next, 0o444);
  renameSync(next, file);
  return file;
}

/** An empty file that hidden files are replaced by. */
function emptyFile(): string {
  return privateFile('empty', '');
}

/** Whether users other than the owner may list and enter the directory. */
function othersMayRead(dir: string): boolean {
  try {
    return (statSync(dir).mode & 0o005) === 0o005;
  } catch {
    return false;
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Whether the sandbox runs a real command on this machine (the program is there, namespaces and mounts are allowed). */
export function isolationWorks(sandbox: HostSandbox, env: Readonly<Record<string, string>>): boolean {
  const cwd = mkdtempSync(join(tmpdir(), `${SANDBOX_DIR_PREFIX}probe-${process.pid}-`));
  try {
    const probe = sandbox.command('/bin/sh', ['-c', 'exit 0'], cwd);
    const result = spawnSync(probe.file, probe.args, { cwd, env: sandbox.env(env), stdio: 'ignore', timeout: 10_000 });
    return result.error === undefined && result.status === 0;
  } catch {
    // The workspace cannot be given to the sandbox user: root of a user namespace that maps no other
    // user (unshare -r, a rootless container) gets EINVAL from chown. No command could run there.
    return false;
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
  /** Set when tools are less confined than the default promises: no namespace sandbox, the host network, no limits. */
  readonly warning?: string;
}

export interface SandboxChoiceOptions {
  /** Files that hold secrets (--env-file, --config), hidden from tools where they would be visible. */
  readonly hide?: readonly string[];
  /** The run's workspace root: other prompts' workspaces are never shown. */
  readonly workspaceRoot?: string;
  /** Network and limits of the namespace sandboxes (default: no network, DEFAULT_TOOL_LIMITS). */
  readonly policy?: SandboxPolicy;
}

const HOST_NETWORK_WARNING =
  "tool commands share this machine's network: they can reach every service listening on 127.0.0.1 (the model endpoint included, with your session) and the internet";

/** The sandbox for this run, or a message when the one asked for cannot run here (a usage error). */
export function chooseSandbox(mode: SandboxMode, env: Readonly<Record<string, string>>, options: SandboxChoiceOptions = {}): ChosenSandbox | string {
  const plain = hostSandbox('none');
  const policy = options.policy ?? DEFAULT_SANDBOX_POLICY;
  if (mode === 'docker') return { host: plain, docker: true, description: "tool commands run in each row's docker_image without network (--sandbox docker)" };
  const unbounded = policy.cgroups === undefined ? 'no limit bounds their processes, memory or CPU time' : 'no limit bounds their CPU time';
  if (mode === 'none')
    return {
      host: plain,
      docker: false,
      description: `tool commands run as plain host processes (--sandbox none): they can see your other processes and read your files${cgroupBounds(policy)}`,
      warning: `--sandbox none: ${HOST_NETWORK_WARNING}, and ${unbounded}`,
    };
  // The check runs /bin/sh, which needs no interpreter; the sandbox the tools get finds them when its first command starts.
  const probed = sandboxFilesystem({ env, ...options, findInterpreters: false });
  const candidates: Exclude<HostIsolation, 'none'>[] = mode === 'auto' ? ['bwrap', 'unshare'] : [mode];
  for (const isolation of candidates) {
    if (isolationWorks(hostSandbox(isolation, probed, env, policy), env)) {
      const host = hostSandbox(isolation, () => sandboxFilesystem({ env, ...options }), env, policy);
      const caveats = [
        ...(policy.network ? [`--tool-network: ${HOST_NETWORK_WARNING}`] : []),
        ...(host.limits === undefined ? [`prlimit (util-linux) was not found, so ${unbounded.replace('their', "the tools'")}`] : []),
      ];
      const { maxProcs, memoryBytes, cpuSeconds } = policy.limits;
      const bounds =
        policy.cgroups !== undefined
          ? `limits: ${limitsMechanism(policy.cgroups)}, at most ${maxProcs} processes and ${formatSize(memoryBytes)} together, ` +
            (host.limits === undefined ? 'no CPU time limit' : `${cpuSeconds} CPU s per process`)
          : host.limits === undefined
            ? 'no limits'
            : `limits: ${limitsMechanism(undefined)}, at most ${maxProcs} processes, ${formatSize(memoryBytes)} and ${cpuSeconds} CPU s each`;
      return {
        host,
        docker: false,
        description:
          `tool commands run in their own user, PID, mount${policy.network ? '' : ' and network'} namespace, seeing only the system directories, ` +
          `their workspace and empty /tmp and home, ${policy.network ? "with this machine's network" : 'with no network'}, ${bounds}` +
          `${host.owner === undefined ? '' : `, as uid ${host.owner.uid}`} (--sandbox ${isolation}${mode === 'auto' ? ', chosen by auto' : ''})`,
        ...(caveats.length === 0 ? {} : { warning: caveats.join('; ') }),
      };
    }
  }
  if (mode !== 'auto') return unavailableMessage(mode);
  return {
    host: plain,
    docker: false,
    description: `tool commands run as plain host processes (--sandbox auto found neither bwrap nor unshare working)${cgroupBounds(policy)}`,
    warning:
      `no namespace sandbox works here (install bubblewrap: apt-get install bubblewrap), so tool commands can see your other processes, their environments and your files; ${HOST_NETWORK_WARNING}; ` +
      `${unbounded}; pass --sandbox none to accept that`,
  };
}

/** What bounds plain host processes: a cgroup per prompt, where there is one. */
function cgroupBounds(policy: SandboxPolicy): string {
  const { maxProcs, memoryBytes } = policy.limits;
  return policy.cgroups === undefined
    ? ''
    : `; limits: ${limitsMechanism(policy.cgroups)}, at most ${maxProcs} processes and ${formatSize(memoryBytes)} together`;
}

function unavailableMessage(mode: 'bwrap' | 'unshare'): string {
  const install =
    mode === 'bwrap' ? 'install bubblewrap (apt-get install bubblewrap)' : 'install util-linux (unshare, mount, setpriv), or allow user namespaces';
  return `--sandbox ${mode} cannot run a command on this machine; ${install}, or choose another --sandbox (auto picks what works)`;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}
