// failures.jsonl: every prompt that failed after the client's retries, as its failure record
// (schemas/failure.schema.json: place, id, class, diagnosis). Appended (and fsynced) as failures happen, so a killed run still shows them; at the
// end of an invocation it is rewritten to the prompts that still have no record (the latest failure
// of each), which are exactly what the next --resume runs again; not when it holds that already.
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { outputFailure, writeFileAtomic } from '@hermes-datagen/core';
import type { FailureRecord } from '../promptFailure.js';

export const FAILURES_FILE = 'failures.jsonl';

export class FailureLog {
  private readonly path: string;
  private readonly latest = new Map<string, FailureRecord>();
  private chain: Promise<void> = Promise.resolve();
  /** The file as load() read it, while it still holds exactly that; undefined once appended to (or when there was none). */
  private loaded: string | undefined;

  public constructor(dir: string) {
    this.path = join(dir, FAILURES_FILE);
  }

  /** Failures of earlier invocations; a line cut by a kill is ignored (the prompt runs again anyway). */
  public async load(): Promise<number> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    this.loaded = text;
    for (const line of text.split('\n')) {
      try {
        const record = JSON.parse(line) as FailureRecord;
        if (typeof record.id === 'string') this.latest.set(record.id, record);
      } catch {
        // A torn last line.
      }
    }
    return this.latest.size;
  }

  public has(id: string): boolean {
    return this.latest.has(id);
  }

  public async add(record: FailureRecord): Promise<void> {
    this.latest.set(record.id, record);
    this.loaded = undefined;
    const appended = this.chain.then(() => appendLine(this.path, JSON.stringify(record)));
    this.chain = appended.catch(() => undefined);
    await appended;
  }

  /** The sub-agents that failed (and are not done since) whose root's record is written: what a --resume runs again of them. */
  public subAgentsToRun(isDone: (id: string) => boolean): FailureRecord[] {
    return [...this.latest.values()].filter((record) => record.parent_id !== undefined && !isDone(record.id) && isDone(rootId(record.id)));
  }

  /**
   * Keeps the failures of prompts that are still not done; returns them. A sub-agent's failure goes
   * with its root's record: when the root has none (a kill between the two), the root runs again
   * whole, and its sub-agents with it.
   */
  public async settle(isDone: (id: string) => boolean): Promise<FailureRecord[]> {
    await this.chain;
    for (const [id, record] of [...this.latest]) {
      if (isDone(id) || (record.parent_id !== undefined && !isDone(rootId(id)))) this.latest.delete(id);
    }
    const unresolved = [...this.latest.values()].sort((a, b) => a.prompt_index - b.prompt_index || (a.sample ?? 0) - (b.sample ?? 0));
    const text = unresolved.map((record) => `${JSON.stringify(record)}\n`).join('');
    // A resume that changed nothing leaves the file as it was.
    if (text !== this.loaded) await writeFileAtomic(this.path, text);
    return unresolved;
  }
}

/** The root prompt's record id of a sub-agent's (`<root>/d0.1/d2.0` -> `<root>`; a row id may hold a '/' itself). */
export function rootId(id: string): string {
  return id.replace(/(?:\/d\d+\.\d+)+$/, '');
}

async function appendLine(path: string, line: string): Promise<void> {
  try {
    const handle = await open(path, 'a');
    try {
      await handle.write(`${line}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // A full disk names this file (a write through a handle names none).
    throw outputFailure(error, path) ?? error;
  }
}
