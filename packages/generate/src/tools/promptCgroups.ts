// A cgroup per prompt, where this machine lets hermes-generate make them: all of one prompt's tool
// processes together, across its tool calls, are bounded to --tool-max-procs processes (pids.max)
// and --tool-memory (the memory limit, without swap). That is what per-process rlimits cannot do: a
// prompt's background processes that outlive a call (under --sandbox none, a `setsid` daemon) still
// count, and memory is the prompt's total, not each process's. CPU time stays an rlimit (toolLimits.ts).
//
// Usable is a cgroup v2 tree with the pids and memory controllers given to its children (the parent's
// cgroup.subtree_control), or the cgroup v1 pids and memory hierarchies, writable by this process.
// Each prompt's cgroup is made the first time one of its tools starts a process, named after this
// process's pid (hermes-<pid>-<n>), so cgroups a killed run left are swept at the next run's start. A
// tool process joins it before it runs anything: the wrapper in front of the sandbox writes its own
// pid to cgroup.procs and then execs the sandbox (joinCommand), so every process after it is inside.
// When the prompt ends, what is left in it is killed and the cgroup removed.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { formatSize, type CgroupEvents } from './toolLimits.js';
import { isAlive } from '../processAlive.js';

export type CgroupLayout =
  /** The directory the prompts' cgroups are made in. */
  | { readonly version: 2; readonly parent: string }
  /** The pids and memory hierarchies' directories, and whether memory has a swap limit (memsw). */
  | { readonly version: 1; readonly pids: string; readonly memory: string; readonly memsw: boolean };

/** How the run's processes and memory are bounded, for the start line and the docs. */
export function limitsMechanism(layout: CgroupLayout | undefined): string {
  return layout === undefined ? 'rlimits per process' : `cgroup v${layout.version} (pids, memory) per prompt`;
}

/**
 * The cgroups this process may make children in, under `root` (where cgroupfs is mounted) and this
 * process's own membership (the text of /proc/self/cgroup); undefined when there are none.
 */
export function detectCgroups(root = '/sys/fs/cgroup', membership = readMembership()): CgroupLayout | undefined {
  const paths = membershipPaths(membership);
  for (const mount of [root, join(root, 'unified')]) {
    const parent = under(mount, paths.get(''));
    if (!existsSync(join(mount, 'cgroup.controllers'))) continue;
    const delegated = readText(join(parent, 'cgroup.subtree_control'))?.split(/\s+/) ?? [];
    if (delegated.includes('pids') && delegated.includes('memory') && writable(parent)) return { version: 2, parent };
  }
  const pids = under(join(root, 'pids'), paths.get('pids'));
  const memory = under(join(root, 'memory'), paths.get('memory'));
  if (existsSync(join(pids, 'cgroup.procs')) && existsSync(join(memory, 'memory.limit_in_bytes')) && writable(pids) && writable(memory)) {
    return { version: 1, pids, memory, memsw: existsSync(join(memory, 'memory.memsw.limit_in_bytes')) };
  }
  return undefined;
}

/** A cgroup's directory: its path under the hierarchy's mount, without a trailing slash. */
function under(mount: string, path = '/'): string {
  return path === '/' ? mount : join(mount, path);
}

/** The cgroup path of each v1 controller in /proc/self/cgroup's text, and v2's under ''. */
function membershipPaths(membership: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of membership.split('\n')) {
    const match = /^\d+:([^:]*):(\/.*)$/.exec(line);
    if (match === null) continue;
    for (const controller of (match[1] ?? '').split(',')) paths.set(controller, match[2] ?? '/');
  }
  return paths;
}

function readMembership(): string {
  return readText('/proc/self/cgroup') ?? '';
}

const NAME = /^hermes-(\d+)-\d+$/;

/** Cgroups made by this process so far: numbers their names. */
let made = 0;

/** The run's prompt cgroups: made on demand, and all of them known, so a forced exit can kill what they hold. */
export class PromptCgroups {
  private readonly live = new Set<PromptCgroup>();

  private constructor(
    public readonly layout: CgroupLayout,
    private readonly maxProcs: number,
    private readonly memoryBytes: number,
  ) {}

  /**
   * The run's cgroups under `layout`, after sweeping those of runs that are gone; a message instead
   * when a cgroup with these limits cannot be made here (checked with a real one).
   */
  public static open(layout: CgroupLayout, maxProcs: number, memoryBytes: number): PromptCgroups | string {
    for (const parent of parents(layout)) sweep(parent);
    const cgroups = new PromptCgroups(layout, maxProcs, memoryBytes);
    const probe = cgroups.prompt();
    try {
      probe.dirs();
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      probe.removeNow();
    }
    return cgroups;
  }

  /** A cgroup for one prompt, made when a process first needs it. */
  public prompt(): PromptCgroup {
    made += 1;
    const cgroup = new PromptCgroup(this.layout, `hermes-${process.pid}-${made}`, this.maxProcs, this.memoryBytes, () => this.live.delete(cgroup));
    this.live.add(cgroup);
    return cgroup;
  }

  /** Synchronously SIGKILLs every process in every prompt cgroup: the last thing before a forced exit. */
  public killAll(): void {
    for (const cgroup of this.live) cgroup.killNow();
  }
}

export class PromptCgroup {
  private made: readonly string[] | undefined;

  public constructor(
    private readonly layout: CgroupLayout,
    private readonly name: string,
    private readonly maxProcs: number,
    private readonly memoryBytes: number,
    private readonly forget: () => void,
  ) {}

  /** What the cgroup bounds: all the prompt's tool processes together. */
  public get limits(): { readonly maxProcs: number; readonly memoryBytes: number } {
    return { maxProcs: this.maxProcs, memoryBytes: this.memoryBytes };
  }

  /** The cgroup directories a process joins (two under v1: pids and memory), made with their limits on first use. */
  public dirs(): readonly string[] {
    if (this.made !== undefined) return this.made;
    const dirs = parents(this.layout).map((parent) => join(parent, this.name));
    this.made = dirs;
    try {
      for (const dir of dirs) mkdirSync(dir);
      const [pids, memory] = this.layout.version === 2 ? [dirs[0], dirs[0]] : [dirs[0], dirs[1]];
      writeFileSync(join(pids ?? '', 'pids.max'), String(this.maxProcs));
      if (this.layout.version === 2) {
        writeFileSync(join(memory ?? '', 'memory.max'), String(this.memoryBytes));
        if (existsSync(join(memory ?? '', 'memory.swap.max'))) writeFileSync(join(memory ?? '', 'memory.swap.max'), '0');
      } else {
        writeFileSync(join(memory ?? '', 'memory.limit_in_bytes'), String(this.memoryBytes));
        // memsw is memory plus swap, and may not be set below memory.limit_in_bytes: after it.
        if (this.layout.memsw) writeFileSync(join(memory ?? '', 'memory.memsw.limit_in_bytes'), String(this.memoryBytes));
      }
    } catch (error) {
      this.removeNow();
      throw new Error(
        `could not make the prompt's cgroup ${dirs.join(' and ')} limited to ${this.maxProcs} processes and ${formatSize(this.memoryBytes)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return dirs;
  }

  /** The limit hits counted so far (compared before and after a tool call). */
  public events(): CgroupEvents {
    if (this.made === undefined) return { forkFailures: 0, oomKills: 0 };
    const [pids, memory] = this.layout.version === 2 ? [this.made[0], this.made[0]] : [this.made[0], this.made[1]];
    const memoryEvents = this.layout.version === 2 ? 'memory.events' : 'memory.oom_control';
    return { forkFailures: counter(join(pids ?? '', 'pids.events'), 'max'), oomKills: counter(join(memory ?? '', memoryEvents), 'oom_kill') };
  }

  /** At the prompt's end: what is left in the cgroup is killed, and the cgroup removed once it is empty. */
  public async close(): Promise<void> {
    this.forget();
    if (this.made === undefined) return;
    const dirs = this.made;
    // The processes die in a moment; a cgroup cannot be removed while one is still in it.
    for (let tries = 0; ; tries += 1) {
      killMembers(this.layout, dirs);
      if (dirs.every(tryRemove)) return;
      // Still busy after seconds: left for the next run's sweep.
      if (tries === 500) return;
      await delay(10);
    }
  }

  public killNow(): void {
    if (this.made !== undefined) killMembers(this.layout, this.made);
  }

  /** For a cgroup that held no process yet (the probe, one whose limits could not be set). */
  public removeNow(): void {
    this.forget();
    for (const dir of this.made ?? []) tryRemove(dir);
  }
}

/**
 * The command line that runs `file args` inside the cgroup: /bin/sh writes its own pid to each
 * directory's cgroup.procs and then execs the command, so the command and all it starts are inside.
 */
export function joinCommand(dirs: readonly string[], file: string, args: readonly string[]): { file: string; args: string[] } {
  const script =
    'for d in "$@"; do shift; [ "$d" = -- ] && exec "$@"; ' +
    `echo $$ > "$d/cgroup.procs" || { echo "hermes-generate: could not join the prompt's cgroup $d" >&2; exit 126; }; done`;
  return { file: '/bin/sh', args: ['-c', script, 'hermes-cgroup', ...dirs, '--', file, ...args] };
}

function parents(layout: CgroupLayout): string[] {
  return layout.version === 2 ? [layout.parent] : [layout.pids, layout.memory];
}

/** Removes the hermes cgroups in `parent` whose run (the pid in the name) is gone, killing what is left in them. */
function sweep(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = NAME.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    const dir = join(parent, name);
    killPids(dir);
    tryRemove(dir);
  }
}

function killMembers(layout: CgroupLayout, dirs: readonly string[]): void {
  const [first] = dirs;
  // cgroup.kill (Linux 5.14) kills every process in the cgroup at once, even one forking as it goes.
  if (layout.version === 2 && first !== undefined && existsSync(join(first, 'cgroup.kill'))) {
    try {
      writeFileSync(join(first, 'cgroup.kill'), '1');
      return;
    } catch {
      // Gone already, or not allowed: every pid one by one below.
    }
  }
  for (const dir of dirs) killPids(dir);
}

function killPids(dir: string): void {
  for (const pid of (readText(join(dir, 'cgroup.procs')) ?? '').split('\n')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Ended already.
    }
  }
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** The number after `key` in a flat-keyed cgroup file (pids.events, memory.events); 0 when there is none. */
function counter(file: string, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(readText(file) ?? '');
  return match === null ? 0 : Number(match[1]);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
