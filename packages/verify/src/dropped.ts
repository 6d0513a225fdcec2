// --dropped FILE: rows that a stage before hermes-verify deliberately did not pass on, so the count
// check can tell them from missing ones. A file is any stage's record of what it dropped, one JSON
// object a line, recognised by shape:
//   - hermes-filter --rejects: the dropped record plus "reason" (a tombstone there keeps its "discarded");
//   - hermes-generate failures (--rejects in stream mode, failures.jsonl of a run): schemas/failure;
//   - a tombstone (a "discarded" key), e.g. from a run's batch files;
//   - a line a stage skipped under --on-error skip ({"line", "source", "reason", "raw"}): the record in
//     "raw", when it is one, counts as rejected.
// Each accounts for the row of its prompt_index (and id); a line that names no prompt_index accounts for
// nothing and is only counted. Only keys and reasons are kept, never the records.
import { isPlainObject, readRecords, type OnError, type Place, type Reject } from '@hermes-datagen/core';
import { parentOf, rowKey } from './observed.js';

export interface DroppedRow {
  /** The record's id, or `#<prompt_index>` (rowKey). */
  readonly key: string | undefined;
  readonly id: string | undefined;
  readonly promptIndex: number;
  /** Why it was dropped: filter's rule, `failed: <error_class>`, `discarded: <reason>`, or `rejected`. */
  readonly reason: string;
  readonly place: Place;
  /** A sub-agent's record or failure (it names the record that delegated it): not a dataset row. */
  readonly subAgent: boolean;
}

export interface DroppedFile {
  readonly path: string;
  readonly rows: readonly DroppedRow[];
  /** Lines that name no prompt_index, so account for no row. */
  readonly unkeyed: number;
}

export interface DroppedReadOptions {
  readonly onError: OnError;
  readonly maxLineBytes: number;
  readonly signal: AbortSignal;
  readonly onReject: (reject: Reject) => void | Promise<void>;
}

export async function readDroppedFile(path: string, cwd: string, options: DroppedReadOptions): Promise<DroppedFile> {
  const rows: DroppedRow[] = [];
  let unkeyed = 0;
  for await (const batch of readRecords([path], undefined, cwd, options)) {
    for (const line of batch) {
      const row = droppedRow(line.value, line.place);
      if (row === undefined) unkeyed += 1;
      else rows.push(row);
    }
  }
  return { path, rows, unkeyed };
}

/** The row a line of a --dropped file accounts for, or undefined when it names none. */
export function droppedRow(value: Record<string, unknown>, place: Place): DroppedRow | undefined {
  const skipped = skippedRecord(value);
  const record = skipped ?? value;
  const index = record['prompt_index'];
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) return undefined;
  const id = typeof record['id'] === 'string' && record['id'] !== '' ? record['id'] : undefined;
  return { key: rowKey(record), id, promptIndex: index, reason: skipped ? 'rejected' : reasonOf(value), place, subAgent: parentOf(record) !== undefined };
}

function reasonOf(value: Record<string, unknown>): string {
  if (typeof value['error_class'] === 'string') return `failed: ${value['error_class']}`;
  if (typeof value['discarded'] === 'string') return `discarded: ${value['discarded']}`;
  return typeof value['reason'] === 'string' && value['reason'] !== '' ? value['reason'] : 'unspecified';
}

/** The record inside a reject of a skipped line ({"line", "source", "reason", "raw"}), when its raw text is one. */
function skippedRecord(value: Record<string, unknown>): Record<string, unknown> | undefined {
  if ('prompt_index' in value || typeof value['raw'] !== 'string' || typeof value['source'] !== 'string' || typeof value['line'] !== 'number') return undefined;
  try {
    const record: unknown = JSON.parse(value['raw']);
    return isPlainObject(record) ? record : undefined;
  } catch {
    return undefined;
  }
}
