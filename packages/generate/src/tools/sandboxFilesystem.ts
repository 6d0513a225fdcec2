// What a tool process of the namespace sandboxes (sandbox.ts) sees of the filesystem. An allow-list,
// like the environment (toolEnv.ts): the system directories that programs need (/usr, /bin, /lib*,
// /opt), read-only; of /etc only the entries programs need (ETC_ENTRIES), read-only, and a passwd and
// group that name no user of the host; a private /dev of only DEV_NODES and DEV_LINKS; the directories of the interpreters execute_code runs when they are installed
// elsewhere (a pyenv Python under ~/.pyenv), read-only; its own workspace, read-write; and private
// empty directories for /tmp, /var/tmp, /home, /root, /run and $HOME. Nothing else: not the user's
// files (~/.env, ~/.aws, ~/.ssh), not other users' homes, not the run's inputs and outputs, not
// other prompts' workspaces. The files that hold the key (--env-file, --config) are replaced by an
// empty file where they lie in a shown directory. Computed once, when the first tool command starts
// (a run that starts none, such as a resume with nothing left, never probes the interpreters): a
// tool call only adds its workspace.
import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';

/** Top-level system entries shown read-only (when they exist): directories bound, links recreated. */
export const SYSTEM_PATHS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt'];

/**
 * What of /etc both sandboxes show, read-only (what exists of it): name resolution, TLS certificates,
 * the dynamic linker's cache, the time zone and locale, the alternatives' links, the shells' and
 * language runtimes' own files. Not shadow files, ssh host keys, sudoers, the host's users, nor
 * anything that may hold a token (gitconfig, npmrc, pip.conf, wgetrc).
 */
export const ETC_ENTRIES: readonly string[] = [
  'hosts',
  'resolv.conf',
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'protocols',
  'services',
  'networks',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'pki/tls/certs',
  'pki/ca-trust',
  'crypto-policies',
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'locale.alias',
  'locale.conf',
  'os-release',
  'debian_version',
  'lsb-release',
  'mime.types',
  'magic',
  'magic.mime',
  'inputrc',
  'bash.bashrc',
  'profile',
  'terminfo',
  'fonts',
  'perl',
];
/** Language runtimes' directories in /etc, by name (python3, python3.11, java-17-openjdk). */
const ETC_RUNTIME = /^(?:python3(?:\.\d+)?|java-\d+-openjdk)$/;

/** The devices of the sandbox's /dev, bound from the host's (what bwrap's --dev makes, too). */
export const DEV_NODES: readonly string[] = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];
/** The links of the sandbox's /dev; besides them it holds its own pts (with ptmx) and an empty shm. */
export const DEV_LINKS: readonly { readonly name: string; readonly target: string }[] = [
  { name: 'fd', target: '/proc/self/fd' },
  { name: 'stdin', target: '/proc/self/fd/0' },
  { name: 'stdout', target: '/proc/self/fd/1' },
  { name: 'stderr', target: '/proc/self/fd/2' },
  { name: 'ptmx', target: 'pts/ptmx' },
  { name: 'core', target: '/proc/kcore' },
];

/** An entry of the host's /etc that the sandbox shows at `path`: `source` is what it is, its links followed. */
export interface EtcEntry {
  readonly path: string;
  readonly source: string;
  readonly directory: boolean;
}
/** Made private and empty in every sandbox (what exists of them). */
const PRIVATE_DIRS: readonly string[] = ['/tmp', '/var/tmp', '/home', '/root', '/run'];
/** The kernel's and devices' file systems: each sandbox mounts its own, or keeps the host's read-only. */
const KERNEL_DIRS: readonly string[] = ['/proc', '/dev', '/sys'];

export interface SandboxFilesystem {
  /** System directories shown read-only at their own path. */
  readonly system: readonly string[];
  /** Installations of the interpreters outside the system directories, shown read-only; their bin goes first on PATH. */
  readonly interpreters: readonly string[];
  /** What of /etc is shown (the sandbox's own /etc holds these, a passwd and a group: sandboxAccounts). */
  readonly etc: readonly EtcEntry[];
  /** Top-level links recreated as they are (/bin -> usr/bin). */
  readonly links: readonly { readonly path: string; readonly target: string }[];
  /** Directories that are private and empty (a tmpfs of the sandbox), parents before children. */
  readonly empty: readonly string[];
  /** Files in shown directories that are replaced by an empty file. */
  readonly hidden: readonly string[];
}

export interface SandboxFilesystemOptions {
  /** The tools' environment (its PATH finds python3, its HOME is made empty). */
  readonly env: Readonly<Record<string, string>>;
  /** Files to hide where they would be visible: --env-file, --config. */
  readonly hide?: readonly string[];
  /** The root of the run's workspaces: made empty where it would be visible (a tool gets its own back). */
  readonly workspaceRoot?: string;
  /** The root directory to look at (tests); default "/". */
  readonly root?: string;
  /**
   * false: leave out the interpreters' installations, whose probe starts python3 (about 0.2 s under a
   * pyenv shim): for the start-up check that the sandbox runs at all, which runs /bin/sh only.
   */
  readonly findInterpreters?: boolean;
}

export function sandboxFilesystem(options: SandboxFilesystemOptions): SandboxFilesystem {
  const root = options.root ?? '/';
  const system: string[] = [];
  const links: { path: string; target: string }[] = [];
  for (const path of SYSTEM_PATHS) {
    const stats = lstatOrUndefined(join(root, path));
    if (stats?.isSymbolicLink()) links.push({ path, target: readlinkSync(join(root, path)) });
    else if (stats?.isDirectory()) system.push(path);
  }
  const etc = etcEntries(root);
  const visible = (path: string): boolean => [...system, ...links.map((link) => link.path)].some((dir) => isInside(path, dir));
  const interpreters = options.findInterpreters === false ? [] : interpreterPrefixes(options.env).filter((prefix) => !visible(prefix));

  // A HOME that does not exist (nobody's /nonexistent) stays missing, as on the host.
  const home = options.env['HOME'];
  const homes = home && statOrUndefined(home)?.isDirectory() ? [realOrResolved(home)] : [];
  const empty = [...PRIVATE_DIRS.filter((dir) => lstatOrUndefined(join(root, dir))?.isDirectory()), ...homes];
  if (options.workspaceRoot !== undefined && visible(resolve(options.workspaceRoot))) empty.push(resolve(options.workspaceRoot));
  // Where a file shows in the sandbox: at its own path in a shown directory, and in /etc wherever an entry leads to it.
  const shownAt = (file: string): string[] => [
    ...(visible(file) || interpreters.some((dir) => isInside(file, dir)) ? [file] : []),
    ...etc.filter((entry) => isInside(file, entry.source)).map((entry) => join(entry.path, relative(entry.source, file))),
  ];
  const hidden = (options.hide ?? []).flatMap((file) => shownAt(realOrResolved(file)));
  return { system, interpreters, etc, links, empty: unique(empty).sort((a, b) => a.length - b.length), hidden: unique(hidden) };
}

/**
 * For a sandbox that keeps the host's root and covers what is not shown (unshare): every top-level
 * directory that is neither a system nor a kernel one is made empty, every top-level file hidden.
 */
export function coverTopLevel(filesystem: SandboxFilesystem, root = '/'): SandboxFilesystem {
  const shown = new Set([...SYSTEM_PATHS, '/etc', ...KERNEL_DIRS]);
  const empty: string[] = [];
  const hidden: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = `/${entry.name}`;
    if (shown.has(path)) continue;
    if (entry.isDirectory()) empty.push(path);
    else if (entry.isFile()) hidden.push(path);
  }
  // An interpreter prefix inside a covered directory is bound back after the cover.
  return {
    ...filesystem,
    empty: unique([...empty, ...filesystem.empty]).sort((a, b) => a.length - b.length),
    hidden: unique([...hidden, ...filesystem.hidden]),
  };
}

/** The shown entries of /etc that exist: a link whose target is missing is left out, as the host has no file there. */
function etcEntries(root: string): EtcEntry[] {
  const runtimes = readdirOrEmpty(join(root, 'etc')).filter((name) => ETC_RUNTIME.test(name));
  return [...ETC_ENTRIES, ...runtimes].flatMap((name) => {
    const path = `/etc/${name}`;
    const source = realOrUndefined(join(root, path));
    const stats = source === undefined ? undefined : statOrUndefined(source);
    return source === undefined || stats === undefined ? [] : [{ path, source, directory: stats.isDirectory() }];
  });
}

/** The directories the sandbox's /etc is made of to hold its entries (/etc, /etc/ssl), parents first. */
export function etcDirectories(etc: readonly EtcEntry[]): string[] {
  const dirs = new Set(['/etc']);
  for (const entry of etc) for (let dir = dirname(entry.path); dir !== '/etc'; dir = dirname(dir)) dirs.add(dir);
  return [...dirs].sort((a, b) => a.length - b.length);
}

/**
 * The sandbox's /etc/passwd and /etc/group: programs that ask who they are (whoami, python's
 * getpass, ssh) find root or the sandbox user at `uid`; no user of the host is named.
 */
export function sandboxAccounts(uid: number): { readonly passwd: string; readonly group: string } {
  return {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\n${uid === 0 ? '' : `sandbox:x:${uid}:${uid}:hermes tool sandbox:/tmp:/bin/sh\n`}`,
    group: `root:x:0:\n${uid === 0 ? '' : `sandbox:x:${uid}:\n`}`,
  };
}

/** Where the interpreters execute_code runs are installed, when that is outside the system directories. */
function interpreterPrefixes(env: Readonly<Record<string, string>>): string[] {
  const prefixes = [dirname(dirname(realOrResolved(process.execPath)))];
  const python = onPath('python3', env['PATH'] ?? '');
  if (python !== undefined) {
    // A pyenv or conda shim is a script: ask the interpreter where it lives.
    const probe = spawnSync(python, ['-c', 'import sys; print(sys.base_prefix)'], { env, encoding: 'utf8', timeout: 10_000 });
    const prefix = probe.status === 0 ? probe.stdout.trim() : '';
    if (prefix.startsWith('/')) prefixes.push(realOrResolved(prefix));
  }
  return unique(prefixes);
}

function onPath(program: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    const candidate = join(dir, program);
    if (dir.startsWith('/') && lstatOrUndefined(candidate) !== undefined) return candidate;
  }
  return undefined;
}

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
