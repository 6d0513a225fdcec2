// RUN_DIR_OR_FILES operands -> the JSONL files to read and the run directories among them.
//
// A run directory is a directory holding *.jsonl / *.jsonl.gz files, and optionally the run's JSON
// files: run.json (a run manifest), checkpoint.json and statistics.json, kept whole in the `runs` table.
// Its JSONL files are read in natural order (batch_2 before batch_10). Upstream Hermes also leaves
// trajectories.jsonl there, the merge of its batch_N.jsonl files: next to batch files it is skipped, so
// no record counts twice, and the batch files are the ones read because they hold everything the run's
// statistics.json counted (tombstones and records the merge filtered out). The same holds for files named
// one by one (`run/*.jsonl`): a trajectories.jsonl named with batch files of its own directory is skipped,
// and said so, so that each record is loaded once.
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadOptionFileIfPresent, parseOptionFile, type OptionFile } from '@hermes-datagen/core';

export interface RunDirectory {
  /** The directory as named on the command line. */
  readonly run: string;
  readonly name: string;
  /** The files read from it, as paths relative to the working directory when the operand was. */
  readonly files: readonly string[];
  readonly manifest: string | null;
  readonly checkpoint: string | null;
  readonly statistics: string | null;
}

export interface ResolvedInputs {
  /** Operands for core's reader: files and `-`, in reading order; empty when only empty run directories were named. */
  readonly files: readonly string[];
  readonly runs: readonly RunDirectory[];
  /** The run each file of a run directory belongs to. */
  readonly runOfFile: ReadonlyMap<string, string>;
  /** File operands not read: a run's trajectories.jsonl named together with batch files of its directory. */
  readonly skipped: readonly string[];
}

const JSONL = /\.jsonl(\.gz)?$/;
const MERGED = /^trajectories\.jsonl(\.gz)?$/;
const BATCH = /^batch_\d+\.jsonl(\.gz)?$/;
const naturalOrder = new Intl.Collator('en', { numeric: true }).compare;

/** No operands means standard input, as for every command. */
export function resolveInputs(operands: readonly string[], cwd: string): ResolvedInputs {
  if (operands.length === 0) return { files: ['-'], runs: [], runOfFile: new Map(), skipped: [] };
  const files: string[] = [];
  const runs: RunDirectory[] = [];
  const runOfFile = new Map<string, string>();
  const skipped: string[] = [];
  const batchDirectories = new Set(operands.filter((o) => BATCH.test(basename(o))).map((o) => dirname(resolve(cwd, o))));
  for (const operand of operands) {
    if (operand === '-' || !isDirectory(resolve(cwd, operand))) {
      if (MERGED.test(basename(operand)) && batchDirectories.has(dirname(resolve(cwd, operand)))) skipped.push(operand);
      else files.push(operand);
      continue;
    }
    const run = readRunDirectory(operand, cwd);
    runs.push(run);
    for (const file of run.files) {
      files.push(file);
      runOfFile.set(file, run.run);
    }
  }
  return { files, runs, runOfFile, skipped };
}

function readRunDirectory(operand: string, cwd: string): RunDirectory {
  const dir = resolve(cwd, operand);
  const names = readdirSync(dir).filter((name) => JSONL.test(name) && !isDirectory(join(dir, name)));
  const hasBatches = names.some((name) => BATCH.test(name));
  const chosen = names.filter((name) => !(hasBatches && MERGED.test(name))).sort(naturalOrder);
  return {
    run: operand,
    name: basename(dir),
    files: chosen.map((name) => join(operand, name)),
    manifest: readJsonText(dir, 'run.json'),
    checkpoint: readJsonText(dir, 'checkpoint.json'),
    statistics: readJsonText(dir, 'statistics.json'),
  };
}

/** The file's text when it exists; it must be JSON, as the JSON columns hold it. A fault exits 3 (an operand's file). */
function readJsonText(dir: string, name: string): string | null {
  const file: OptionFile = { option: 'run file', path: join(dir, name), cwd: dir, role: 'input', advice: 'fix or remove it to read the run' };
  const text = loadOptionFileIfPresent(file, 'text');
  if (text === undefined) return null;
  parseOptionFile(file, text, 'json');
  return text;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
