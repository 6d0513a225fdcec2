// A run directory (docs/record-format.md#run-directories; hermes-generate --run-name): its batch_N.jsonl files
// read once into a small index (per row: id, prompt index, file, a 48-bit hash of the line), which the
// checkpoint, trajectories.jsonl and statistics.json are then compared with. Damage in the batch
// files themselves (a torn line, a line that is not a record, the same id twice) is this scan's
// own finding.
import { createHash } from 'node:crypto';
import { open, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readRecords, UsageError, type Place } from '@hermes-datagen/core';
import { Examples, plural, type CheckResult, type Status } from './checkResult.js';
import { at, observe, rowKey } from './observed.js';
import { RunTotals } from './runTotals.js';

export const TRAJECTORIES_FILE = 'trajectories.jsonl';
export const CHECKPOINT_FILE = 'checkpoint.json';
export const STATISTICS_FILE = 'statistics.json';
export const MANIFEST_FILE = 'run.json';
export const FAILURES_FILE = 'failures.jsonl';

const BATCH_FILE = /^batch_(\d+)\.jsonl$/;

export interface BatchRow {
  readonly promptIndex: number;
  /** The batch file's name. */
  readonly file: string;
  readonly discarded: boolean;
  /** First 48 bits of the line's SHA-1: enough to see that trajectories.jsonl holds another line. */
  readonly hash: number;
  /** Set when trajectories.jsonl is compared: the row was found there. */
  merged: boolean;
}

export interface RunScan {
  readonly dir: string;
  readonly batchFiles: readonly string[];
  /** Row key (id, or `#<prompt_index>`) -> row. */
  readonly rows: Map<string, BatchRow>;
  /** The tombstones' id and prompt_index, for the count check (trajectories.jsonl has none). */
  readonly tombstones: readonly { readonly value: { id?: string; prompt_index: number }; readonly place: Place }[];
  readonly totals: RunTotals;
  readonly result: CheckResult;
}

export function lineHash(bytes: Buffer): number {
  return createHash('sha1').update(bytes).digest().readUIntBE(0, 6);
}

export interface ScanOptions {
  /** Relative paths (the directory as given) resolve against it; messages show them as given. */
  readonly cwd: string;
  readonly maxLineBytes: number;
  readonly signal: AbortSignal;
}

export async function scanRunDirectory(dir: string, options: ScanOptions): Promise<RunScan> {
  let names: string[];
  try {
    names = await readdir(resolve(options.cwd, dir));
  } catch (err) {
    throw new UsageError(
      `cannot read --run-dir ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): name the directory hermes-generate --run-name wrote`,
    );
  }
  const batchFiles = names
    .map((name) => ({ name, num: BATCH_FILE.exec(name)?.[1] }))
    .filter((entry): entry is { name: string; num: string } => entry.num !== undefined)
    .sort((a, b) => Number(a.num) - Number(b.num))
    .map(({ name }) => name);
  const rows = new Map<string, BatchRow>();
  const tombstones: RunScan['tombstones'][number][] = [];
  const totals = new RunTotals();
  const torn = new Examples();
  const invalid = new Examples();
  const duplicates = new Examples();
  const noNewline = new Examples();
  let lines = 0;
  for (const file of batchFiles) {
    const path = join(dir, file);
    const records = readRecords([path], undefined, options.cwd, {
      onError: 'skip',
      maxLineBytes: options.maxLineBytes,
      signal: options.signal,
      onReject: (reject) => torn.add(`${reject.source}:${reject.line}: ${reject.reason}`),
    });
    for await (const batch of records) {
      for (const input of batch) {
        lines += 1;
        const item = observe(input.value, input.raw, input.place);
        totals.add(item);
        if (item.kind === 'invalid') {
          invalid.add(at(item.place, item.problem));
          continue;
        }
        const key = rowKey(item.record);
        if (key === undefined) continue;
        const earlier = rows.get(key);
        if (earlier) {
          duplicates.add(at(item.place, `${JSON.stringify(key)} is also in ${earlier.file}`));
          continue;
        }
        const discarded = item.kind === 'tombstone';
        rows.set(key, { promptIndex: item.record.prompt_index, file, discarded, hash: lineHash(input.bytes), merged: false });
        if (discarded)
          tombstones.push({
            value: { ...(item.record.id !== undefined ? { id: item.record.id } : {}), prompt_index: item.record.prompt_index },
            place: item.place,
          });
      }
    }
    if (!(await endsWithNewline(resolve(options.cwd, path)))) noNewline.add(`${path}: the last line has no newline (a write was cut off)`);
  }
  const damaged = torn.count + invalid.count + duplicates.count;
  let status: Status = damaged > 0 ? 'FAIL' : noNewline.count > 0 ? 'WARN' : 'PASS';
  if (batchFiles.length === 0) status = 'FAIL';
  const summary =
    batchFiles.length === 0
      ? `no batch_N.jsonl files in ${dir}`
      : `${plural(batchFiles.length, 'batch file')}, ${plural(lines, 'record')} (${totals.trajectories} trajectories, ${tombstones.length} tombstones)` +
        (damaged > 0 ? `; ${torn.count} unreadable or torn lines, ${invalid.count} not records of the schemas, ${duplicates.count} ids written twice` : '') +
        (noNewline.count > 0 ? `; ${noNewline.count} files end without a newline` : '');
  return {
    dir,
    batchFiles,
    rows,
    tombstones,
    totals,
    result: {
      id: 'run.batch_files',
      title: 'batch files: every line a whole record of the schemas, each id once',
      status,
      summary,
      numbers: {
        batch_files: batchFiles.length,
        records: lines,
        trajectories: totals.trajectories,
        tombstones: tombstones.length,
        torn_lines: torn.count,
        invalid: invalid.count,
        duplicate_ids: duplicates.count,
        files_without_final_newline: noNewline.count,
      },
      problems: [...torn.list(), ...invalid.list(), ...duplicates.list(), ...noNewline.list()],
    },
  };
}

async function endsWithNewline(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    await handle.close();
  }
}
