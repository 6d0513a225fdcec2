// The call journal of a run (<run>/journal/): every model reply of a prompt still running, so that a
// --resume replays what was already paid for (agentCalls.ts) instead of asking for it again. A line
// is {"id", "turn", "request", "reply"}: the record id (sub-agents have their own), the call's index
// in that agent's run, the hash of the exact request, and the reply as the endpoint sent it; and
// "batch": true when the reply came through the batch API (--batch-api), so that a resume prices it
// as it was paid for, with or without --batch-api itself.
//
// Lines are written at once (they reach the page cache, which a killed process does not lose) and
// fsynced a group at a time, at most a second after they were written. The journal stays small: it is kept in numbered
// segments, a new one every SEGMENT_BYTES, and a segment is deleted once every record with a line in
// it is committed; at the start of an invocation the replies of records not yet done are copied into
// a fresh segment and the older segments are deleted. A torn last line (a kill mid-write) is skipped.
import fs from 'node:fs';
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { redact, type ApiKey, type Logger } from '@hermes-datagen/core';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { JournaledReply, JournalSession } from '../agentCalls.js';

export const JOURNAL_DIR = 'journal';
const SEGMENT_BYTES = 8 * 1024 * 1024;
const SEGMENT_NAME = /^(\d+)\.jsonl$/;
/**
 * The lines of this long share one fsync. A killed process loses no line (each is written at once);
 * only a machine that goes down can lose the last second's, whose replies are then bought again.
 * An fsync costs about a model turn's CPU, so one per batch-file group (50 ms) would double the
 * journal's cost for what it guards.
 */
const FSYNC_DELAY_MS = 1000;

interface Entry extends JournaledReply {
  readonly request: string;
}

interface Segment {
  readonly num: number;
  readonly path: string;
  readonly fd: number;
  bytes: number;
  /** Records with a line here that are not committed yet. */
  readonly live: Set<string>;
}

export interface JournalOptions {
  /** false (--no-replay): the journal is emptied at the start, and nothing is replayed. */
  readonly replay: boolean;
  readonly secret: ApiKey;
  readonly log: Logger;
}

export class CallJournal {
  /** Replies an earlier invocation journaled, per record id, by turn. */
  private readonly earlier = new Map<string, Map<number, Entry>>();
  private readonly segments: Segment[] = [];
  private current: Segment;
  private fsyncTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  /** After a failed write the journal is given up: the run goes on, its prompts are just not replayable. */
  private failed = false;

  private constructor(
    private readonly dir: string,
    next: number,
    private readonly options: JournalOptions,
  ) {
    this.current = this.openSegment(next);
  }

  /** Opens the run's journal: the replies of records not done (`isDone`) are kept for replay, the rest dropped. */
  public static async open(runDir: string, isDone: (id: string) => boolean, options: JournalOptions): Promise<CallJournal> {
    const dir = join(runDir, JOURNAL_DIR);
    await mkdir(dir, { recursive: true });
    const old = (await readdir(dir))
      .map((name) => SEGMENT_NAME.exec(name))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ num: Number(match[1]), path: join(dir, match[0]) }))
      .sort((a, b) => a.num - b.num);
    const journal = new CallJournal(dir, (old.at(-1)?.num ?? 0) + 1, options);
    if (options.replay) {
      for (const segment of old) journal.load(await readFile(segment.path, 'utf8'), isDone);
      for (const [id, turns] of journal.earlier) {
        for (const [turn, entry] of [...turns].sort((a, b) => a[0] - b[0])) journal.write(id, turn, entry);
      }
    }
    // The kept replies are in the new segment (once it is fsynced) before the old ones go.
    await journal.flush();
    await Promise.all(old.map((segment) => unlink(segment.path).catch(() => undefined)));
    return journal;
  }

  /** Calls a resume can replay. */
  public get replayable(): number {
    let calls = 0;
    for (const turns of this.earlier.values()) calls += turns.size;
    return calls;
  }

  public session(id: string): JournalSession {
    return {
      replay: (turn, request) => {
        const entry = this.earlier.get(id)?.get(turn);
        return entry?.request === request ? entry : undefined;
      },
      record: (turn, request, reply, batch) => {
        // A live reply supersedes what an earlier invocation had from this turn on.
        this.earlier.delete(id);
        this.write(id, turn, { request, reply, batch });
      },
    };
  }

  /** The record is committed: its lines are needed no more, and segments left with none are deleted. */
  public committed(id: string): void {
    this.earlier.delete(id);
    for (const segment of [...this.segments]) {
      if (segment.live.delete(id) && segment.live.size === 0 && segment !== this.current) this.retire(segment);
    }
  }

  /** A segment none of whose records is still running: deleted (errors are harmless, the next open drops it). */
  private retire(segment: Segment): void {
    this.segments.splice(this.segments.indexOf(segment), 1);
    fs.close(segment.fd, () => fs.unlink(segment.path, () => undefined));
  }

  /** Writes what is waiting to disk and closes the journal; segments whose records are all committed go. */
  public async close(): Promise<void> {
    await this.flush();
    for (const segment of this.segments) {
      fs.closeSync(segment.fd);
      if (segment.live.size === 0) await unlink(segment.path).catch(() => undefined);
    }
    this.segments.length = 0;
  }

  private load(text: string, isDone: (id: string) => boolean): void {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      let value: { id?: unknown; turn?: unknown; request?: unknown; reply?: unknown; batch?: unknown };
      try {
        value = JSON.parse(line) as typeof value;
      } catch {
        continue; // a line cut off by a kill: that reply is asked for again
      }
      const { id, turn, request, reply, batch } = value;
      if (typeof id !== 'string' || typeof turn !== 'number' || typeof request !== 'string' || typeof reply !== 'object' || reply === null) continue;
      if (isDone(id)) continue;
      const turns = this.earlier.get(id) ?? new Map<number, Entry>();
      this.earlier.set(id, turns);
      // A later line of the same turn is a later invocation's live reply: it wins, and what followed
      // the earlier one no longer belongs to this agent's history.
      if (turns.has(turn)) for (const later of [...turns.keys()]) if (later >= turn) turns.delete(later);
      turns.set(turn, { request, reply: reply as ChatCompletion, batch: batch === true });
    }
  }

  private write(id: string, turn: number, { request, reply, batch }: Entry): void {
    if (this.failed) return;
    const line = `${redact(JSON.stringify({ id, turn, request, reply, ...(batch ? { batch } : {}) }), this.options.secret)}\n`;
    try {
      if (this.current.bytes > 0 && this.current.bytes + line.length > SEGMENT_BYTES) {
        const full = this.current;
        this.current = this.openSegment(full.num + 1);
        if (full.live.size === 0) this.retire(full);
      }
      const data = Buffer.from(line);
      for (let offset = 0; offset < data.length; ) offset += fs.writeSync(this.current.fd, data, offset);
      this.current.bytes += data.length;
      this.current.live.add(id);
    } catch (error) {
      this.failed = true;
      this.options.log.warn(
        `the call journal cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)}): prompts stopped now start again from their first call on --resume`,
      );
      return;
    }
    this.fsyncTimer ??= setTimeout(() => {
      this.fsyncTimer = undefined;
      void this.flush();
    }, FSYNC_DELAY_MS);
  }

  private flush(): Promise<void> {
    clearTimeout(this.fsyncTimer);
    this.fsyncTimer = undefined;
    const fd = this.current.fd;
    this.syncing = this.syncing.then(() => new Promise<void>((resolve) => fs.fsync(fd, () => resolve())));
    return this.syncing;
  }

  private openSegment(num: number): Segment {
    const path = join(this.dir, `${String(num).padStart(6, '0')}.jsonl`);
    const segment: Segment = { num, path, fd: fs.openSync(path, 'ax'), bytes: 0, live: new Set() };
    this.segments.push(segment);
    return segment;
  }
}
