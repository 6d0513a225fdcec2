// One new batch_N.jsonl of a run, appended to by many prompts at once, with group commit: the lines
// that arrive within `groupMs` of a group's first line go out in one write and one fsync, and each
// append resolves only once its line is on disk. An fsync costs about as much CPU as a whole model
// turn, so one per record would be most of the run directory's overhead; the wait is a bounded
// delay before a finished record counts as done (a kill in it loses only records that --resume runs again).
//
// Creating, fsyncing and closing a file go to the thread pool: each may wait for the disk or, on a
// network file system (a cluster's shared /data), for the server, and the event loop that carries
// every prompt in flight must not wait with them (a batch of 10 prompts is a file of its own, so a
// run creates one every few prompts). The write of a group is synchronous: it only reaches the page
// cache, in less time than a round trip through the thread pool. The calls go through the `fs`
// object, so tests can count them.
import fs from 'node:fs';
import { join } from 'node:path';
import { outputFailure } from '@hermes-datagen/core';
import { withResolvers } from '../withResolvers.js';
import type { BatchFile } from './batchFiles.js';

export interface GroupCommit {
  /** How long a group's first line waits for others to share its write and fsync. */
  readonly groupMs: number;
  /** A group this large is written at once, without waiting out groupMs. */
  readonly maxGroupBytes: number;
}

export const DEFAULT_GROUP_COMMIT: GroupCommit = { groupMs: 50, maxGroupBytes: 4 * 1024 * 1024 };

interface Group {
  readonly lines: string[];
  bytes: number;
  readonly timer: NodeJS.Timeout;
  readonly committed: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class BatchAppender {
  private group: Group | undefined;
  /** The groups' fsyncs, one after another, so a group resolves only after every earlier one. */
  private chain: Promise<void> = Promise.resolve();
  /** After a failed write the file's end is unknown: nothing more is appended to it. */
  private failure: { readonly error: unknown } | undefined;
  /** Bytes of whole groups written: a failed write is cut back to this, so the file holds whole lines only. */
  private size = 0;

  private constructor(
    public readonly file: BatchFile,
    private readonly fd: number,
    private readonly commit: GroupCommit,
  ) {}

  /** Creates the file; fails if it exists, so nothing is ever overwritten or mixed. */
  public static async create(dir: string, num: number, commit: GroupCommit = DEFAULT_GROUP_COMMIT): Promise<BatchAppender> {
    const name = `batch_${num}.jsonl`;
    const path = join(dir, name);
    return new BatchAppender({ num, name, path }, await openNew(path), commit);
  }

  /** Resolves once `text` (one or more whole lines, without the last newline) is fsynced. */
  public append(text: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.error);
    const group = this.group ?? this.openGroup();
    group.lines.push(text);
    group.bytes += text.length;
    if (group.bytes >= this.commit.maxGroupBytes) this.writeGroup();
    return group.committed;
  }

  /** Writes what is waiting at once, then closes the file; a file that never got a line (its first write failed) goes. */
  public async close(): Promise<void> {
    this.writeGroup();
    await this.chain;
    await closeFile(this.fd);
    if (this.size === 0) await unlinkFile(this.file.path);
  }

  private openGroup(): Group {
    const { promise: committed, resolve, reject } = withResolvers();
    // Nobody may be awaiting yet when a write fails; the rejection still reaches every append's caller.
    committed.catch(() => undefined);
    const group: Group = { lines: [], bytes: 0, timer: setTimeout(() => this.writeGroup(), this.commit.groupMs), committed, resolve, reject };
    this.group = group;
    return group;
  }

  private writeGroup(): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    clearTimeout(group.timer);
    // Written now, in the order of the groups; a failure fails this group and every later one.
    try {
      if (this.failure) throw this.failure.error;
      const data = Buffer.from(`${group.lines.join('\n')}\n`);
      writeAll(this.fd, data);
      this.size += data.length;
    } catch (error) {
      this.fail(error);
    }
    this.chain = this.chain.then(async () => {
      try {
        // This group's failed write, or an earlier group's failed fsync: a second fsync may report success for lost pages.
        if (this.failure) throw this.failure.error;
        await fsync(this.fd);
        group.resolve();
      } catch (error) {
        group.reject(this.fail(error));
      }
    });
  }

  /** The first failure (a full disk as an output failure naming this file) stays the file's; returns it. */
  private fail(error: unknown): unknown {
    if (this.failure === undefined) {
      this.failure = { error: outputFailure(error, this.file.path) ?? error };
      // The part of a group a full disk cut off: a resume would have to repair it (a cut needs no space).
      try {
        fs.ftruncateSync(this.fd, this.size);
      } catch {
        // The file keeps its torn tail, which the next --resume cuts.
      }
    }
    return this.failure.error;
  }
}

/** Every byte of `data` (a write may stop short). */
function writeAll(fd: number, data: Buffer): void {
  for (let offset = 0; offset < data.length; ) offset += fs.writeSync(fd, data, offset);
}

// The thread pool's calls, made through `fs` when called (so a test's spy sees them).

/** Opens a file that must not exist yet ('ax': fails on an existing one), for appending. */
function openNew(path: string): Promise<number> {
  return new Promise((resolve, reject) => fs.open(path, 'ax', (error, fd) => (error ? reject(error) : resolve(fd))));
}

function fsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
}

function closeFile(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.close(fd, (error) => (error ? reject(error) : resolve())));
}

function unlinkFile(path: string): Promise<void> {
  return new Promise((resolve, reject) => fs.unlink(path, (error) => (error ? reject(error) : resolve())));
}
