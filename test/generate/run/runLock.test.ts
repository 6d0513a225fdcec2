// The lock of a run directory: one holder, a refusal that names it, stale locks of dead or reused
// pids taken over, another host's lock never broken, and only one's own lock released.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '@hermes-datagen/core';
import { LOCK_FILE, RunLock, type LockHolder } from '@hermes-datagen/generate/internal/run/runLock.js';
import { tempDir } from '../../util/cli.js';

/** The pid of a process that has exited: no process has it now (pids are not reused this fast). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function writeLock(dir: string, holder: LockHolder): void {
  writeFileSync(join(dir, LOCK_FILE), `${JSON.stringify(holder)}\n`);
}

describe('the run lock', () => {
  it('holds host, pid and start time; a second taker is refused with a usage error naming the holder; free again once released', () => {
    const dir = tempDir();
    const lock = RunLock.acquire(dir, undefined, new Date('2026-01-02T03:04:05Z'));
    const holder = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;
    expect(holder).toMatchObject({ host: hostname(), pid: process.pid, started_at: '2026-01-02T03:04:05.000Z' });
    let refusal: unknown;
    try {
      RunLock.acquire(dir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UsageError);
    expect((refusal as Error).message).toContain(`in use by another invocation (pid ${process.pid} on ${hostname()}, started 2026-01-02T03:04:05.000Z)`);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    RunLock.acquire(dir).release();
    // No temp file of a lock is left behind.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over the lock of a process that is gone (a SIGKILL, a crash)', () => {
    const dir = tempDir();
    writeLock(dir, { host: hostname(), pid: deadPid(), started_at: '2026-01-01T00:00:00.000Z' });
    const lock = RunLock.acquire(dir);
    expect((JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder).pid).toBe(process.pid);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over a lock whose pid now belongs to a process started at another time (a reused pid)', () => {
    const dir = tempDir();
    writeLock(dir, { host: hostname(), pid: process.pid, started_at: '2026-01-01T00:00:00.000Z', process_start: '1' });
    const lock = RunLock.acquire(dir);
    expect((JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder).process_start).not.toBe('1');
    lock.release();
  });

  it("never breaks another host's lock: it cannot tell whether that process lives", () => {
    const dir = tempDir();
    writeLock(dir, { host: 'other-node-17', pid: deadPid(), started_at: '2026-01-01T00:00:00.000Z' });
    expect(() => RunLock.acquire(dir)).toThrow(/pid \d+ on other-node-17.*remove .*run\.lock by hand/);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toContain('other-node-17');
  });

  it('refuses a lock file it cannot read rather than guess', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), '{"host":');
    expect(() => RunLock.acquire(dir)).toThrow(/is locked \(.*run\.lock cannot be read\)/);
  });

  it('releases only its own lock: one taken over by another invocation stays', () => {
    const dir = tempDir();
    const lock = RunLock.acquire(dir);
    const other: LockHolder = { host: hostname(), pid: 1, started_at: '2026-01-01T00:00:00.000Z' };
    writeLock(dir, other);
    lock.release();
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual(other);
  });
});
