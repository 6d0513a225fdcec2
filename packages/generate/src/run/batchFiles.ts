// The batch_N.jsonl files of a run directory: found by number (batch_10 after batch_9, not after
// batch_1 as upstream's lexicographic glob), read back line by line, repaired when the last prompt's
// records were cut by a kill (batchAppender.ts appends to them, with fsync, so that a record counts as done only once it is on disk).
// Each invocation writes new numbers only, after the highest one present, so no file is ever
// reopened for writing (upstream #95322: renumbered batches appended into old files).
import { readdir, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, type Place } from '@hermes-datagen/core';

const BATCH_FILE = /^batch_(\d+)\.jsonl$/;

export interface BatchFile {
  readonly num: number;
  readonly path: string;
  readonly name: string;
}

/** The batch files of `dir` in number order. */
export async function listBatchFiles(dir: string): Promise<BatchFile[]> {
  const names = await readdir(dir);
  return names
    .map((name) => ({ name, match: BATCH_FILE.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ name, match }) => ({ num: Number(match[1]), name, path: join(dir, name) }))
    .sort((a, b) => a.num - b.num);
}

export interface BatchLine {
  readonly value: Record<string, unknown>;
  /** The line as written, without its newline. */
  readonly text: string;
  readonly place: Place;
}

/** What a resume cut off the end of a batch file: the records of a prompt whose append a kill interrupted. */
export interface TailCut {
  /** Bytes after the last newline: the line the kill cut. */
  readonly tornBytes: number;
  /** Ids of the whole sub-agent records before it, whose root record was not written with them. */
  readonly orphans: readonly string[];
}

/**
 * Cuts a file back to its last whole prompt. A prompt's records (its sub-agents' and then its own
 * root record) are written in one append ending in `\n`, so bytes after the last newline are a
 * record a kill interrupted, which was never counted as done, and whole sub-agent records at the end
 * were cut from their root by the same kill: left there, they would stay as records of a prompt
 * that runs again. Returns what was cut, if anything, and the size left.
 */
export async function repairTornTail(file: BatchFile): Promise<{ readonly cut?: TailCut; readonly bytes: number }> {
  const content = await readFile(file.path);
  const whole = content.lastIndexOf(0x0a) + 1;
  let end = whole;
  const orphans: string[] = [];
  for (let id = lastSubAgent(content, end); id !== undefined; id = lastSubAgent(content, end)) {
    orphans.unshift(id.id);
    end = id.start;
  }
  if (end === content.length) return { bytes: end };
  await truncate(file.path, end);
  return { cut: { tornBytes: content.length - whole, orphans }, bytes: end };
}

/** The last line before `end`, when it is a sub-agent's record (one with metadata.parent_id): its id and where it starts. */
function lastSubAgent(content: Buffer, end: number): { readonly id: string; readonly start: number } | undefined {
  if (end === 0) return undefined;
  const start = content.lastIndexOf(0x0a, end - 2) + 1;
  try {
    const value = JSON.parse(content.toString('utf8', start, end - 1)) as { id?: unknown; metadata?: { parent_id?: unknown } } | null;
    return typeof value?.id === 'string' && typeof value.metadata?.parent_id === 'string' ? { id: value.id, start } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every line of one batch file, parsed. A line that is not a JSON object can only be damage from
 * outside (the writer writes whole lines): it is an input error naming its place.
 */
export async function readBatchFile(file: BatchFile): Promise<BatchLine[]> {
  const text = await readFile(file.path, 'utf8');
  const lines: BatchLine[] = [];
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNo += 1;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    const place = { source: file.path, line: lineNo };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InputError(`a line of the run directory is not JSON (${(error as Error).message}); move the file away or repair it, then resume`, place);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new InputError('a line of the run directory is not a JSON object; move the file away or repair it, then resume', place);
    }
    lines.push({ value: value as Record<string, unknown>, text: line, place });
  }
  return lines;
}
