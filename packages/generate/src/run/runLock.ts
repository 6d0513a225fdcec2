// One writer per run directory: `run.lock` is held for a whole invocation, from before the manifest
// is read until run.json is written at its end, so two invocations of one run (a `make dataset`
// started twice, a Slurm requeue while the first job still runs, two shards given one name) can never
// interleave their batch files, checkpoint or manifest. A second invocation is refused at once (exit 2)
// with the holder's host, pid and start time.
//
// The lock file is written whole under a name of its own, then hard-linked to `run.lock`: link()
// fails when the name exists, atomically, also over NFS (where O_EXCL is not atomic before NFSv3),
// and the lock never exists torn or empty. A lock whose process is gone (SIGKILL, a crash, a reboot)
// is stale and taken over: on the same host when no process has its pid, or a process has it that
// started at another time (a reused pid); a lock of another host cannot be checked from here, and is
// never broken (docs: remove the file by hand once that host's process is known to be gone).
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { outputFailure, UsageError } from '@hermes-datagen/core';
import { isAlive } from '../processAlive.js';

export const LOCK_FILE = 'run.lock';

export interface LockHolder {
  readonly host: string;
  readonly pid: number;
  readonly started_at: string;
  /** The process's start in clock ticks since boot (/proc/PID/stat), where the system has it: tells a reused pid apart. */
  readonly process_start?: string | undefined;
  /** The workspace root the invocation made for itself, removed by the one that takes over its stale lock. */
  readonly workspaces?: string | undefined;
}

export class RunLock {
  private released = false;
  private readonly onExit = (): void => this.release();

  private constructor(
    public readonly path: string,
    private readonly text: string,
  ) {
    // A forced exit (a second signal) or any other process.exit still frees the run.
    process.on('exit', this.onExit);
  }

  /** A stale lock this one took over: its dead holder, whose leftovers the caller may remove. */
  public takenOver: LockHolder | undefined;

  /** Takes the lock of `dir`, or throws a UsageError naming its holder. */
  public static acquire(dir: string, workspaces?: string, now: Date = new Date()): RunLock {
    const path = join(dir, LOCK_FILE);
    const me: LockHolder = {
      host: hostname(),
      pid: process.pid,
      started_at: now.toISOString(),
      process_start: processStart(process.pid),
      ...(workspaces === undefined ? {} : { workspaces }),
    };
    const text = `${JSON.stringify(me)}\n`;
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, text, { flag: 'wx' });
    } catch (error) {
      // A full disk: no half-written temp file stays, and the message names the lock.
      rmSync(temp, { force: true });
      throw outputFailure(error, path) ?? error;
    }
    let stale: LockHolder | undefined;
    try {
      // Twice at most: a stale lock is moved aside once, then the link is tried again.
      for (let attempt = 0; ; attempt += 1) {
        try {
          linkSync(temp, path);
          const lock = new RunLock(path, text);
          lock.takenOver = stale;
          return lock;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const holder = readHolder(path);
        if (attempt === 0 && holder !== 'gone' && isStale(holder) && breakStale(path, holder)) {
          stale = holder;
          continue;
        }
        if (attempt === 0 && holder === 'gone') continue;
        throw new UsageError(refusal(dir, holder === 'gone' ? undefined : holder));
      }
    } finally {
      unlinkSync(temp);
    }
  }

  /** Gives the run free; only the lock this invocation wrote is removed. */
  public release(): void {
    if (this.released) return;
    this.released = true;
    process.off('exit', this.onExit);
    try {
      if (readFileSync(this.path, 'utf8') === this.text) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to free.
    }
  }
}

/** The holder as its lock file says, undefined when the file cannot be parsed, 'gone' when it was removed meanwhile. */
function readHolder(path: string): LockHolder | undefined | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    return typeof value.host === 'string' && typeof value.pid === 'number' && typeof value.started_at === 'string' ? (value as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

/** Only a lock of this host can be known stale: its process is gone, or its pid now belongs to a process started later. */
function isStale(holder: LockHolder | undefined): holder is LockHolder {
  if (holder === undefined || holder.host !== hostname()) return false;
  if (!isAlive(holder.pid)) return true;
  const start = processStart(holder.pid);
  return holder.process_start !== undefined && start !== undefined && start !== holder.process_start;
}

/**
 * Moves a stale lock aside (rename is atomic: of two invocations breaking it at once, one moves it,
 * the other finds it gone) and checks that what was moved is the stale lock and not a fresh one
 * taken meanwhile, which is linked back.
 */
function breakStale(path: string, stale: LockHolder): boolean {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const moved = readHolder(aside);
  const same = moved !== 'gone' && moved !== undefined && moved.pid === stale.pid && moved.started_at === stale.started_at && moved.host === stale.host;
  if (!same) {
    try {
      linkSync(aside, path);
    } catch {
      // Another lock was taken meanwhile: that one holds the run.
    }
  }
  unlinkSync(aside);
  return same;
}

function refusal(dir: string, holder: LockHolder | undefined): string {
  const path = join(dir, LOCK_FILE);
  if (holder === undefined) return `the run in ${dir} is locked (${path} cannot be read): another invocation may be writing it; try again once it has ended`;
  const who = `pid ${holder.pid} on ${holder.host}, started ${holder.started_at}`;
  const elsewhere =
    holder.host === hostname()
      ? ''
      : `; a lock of another host is never broken from here: if that process is gone (its machine rebooted), remove ${path} by hand`;
  return `the run in ${dir} is in use by another invocation (${who}): one invocation writes a run at a time; wait for it to end, then --resume${elsewhere}`;
}

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot); undefined where there is no /proc. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
