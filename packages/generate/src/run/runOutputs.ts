// What a run directory holds besides its batch files, rebuilt from them at the end of every
// invocation (even a stopped one), so they always agree with the records: trajectories.jsonl (every
// trajectory of every batch file, tombstones left out, lines unchanged, as upstream's merge) and
// statistics.json (upstream's shape plus hermes-stats' mergeable summary, over the whole run, so
// `hermes-stats merge` combines shards' files).
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkSchema, InputError, writeFileAtomicWith, writeJsonAtomic, type JsonObject, type Place } from '@hermes-datagen/core';
import { addTombstone, addTrajectory, emptySummary, finaliseSummary, mergeSummaries, type StatisticsSummary } from '@hermes-datagen/core';
import { readBatchFile, type BatchFile } from './batchFiles.js';

export const TRAJECTORIES_FILE = 'trajectories.jsonl';
export const STATISTICS_FILE = 'statistics.json';

export interface RunFacts {
  readonly run_name: string;
  readonly distribution: string;
  /** Records the run is to make: rows (after --max-samples and --shard) times --samples. */
  readonly total_prompts: number;
  readonly batch_size: number;
  readonly model: string;
  /** Wall time of all invocations so far. */
  readonly duration_seconds: number;
}

export interface MergeResult {
  readonly trajectories: number;
  readonly tombstones: number;
  readonly summary: StatisticsSummary;
}

/**
 * The records this invocation appended, counted as they were written (recordCommits.ts): the merge takes
 * those files' statistics from here and copies their trajectories without parsing them again, which
 * was most of the run directory's cost per record.
 */
export interface FreshRecords {
  /** Batch files written by this invocation alone, every line of which is counted in `summary`. */
  readonly files: ReadonlySet<string>;
  readonly summary: ReturnType<typeof emptySummary>;
}

/** The start of a tombstone line as recordCommits.ts writes one (JSON.stringify of tombstone(): id, prompt_index, discarded). */
const TOMBSTONE_LINE = /^\{"id":"(?:[^"\\]|\\.)*","prompt_index":\d+,"discarded":/;
/**
 * Part of every tombstone line, and of no trajectory line as recordCommits.ts writes it unless a nested
 * object has a member named `discarded` (inside a JSON string the quotes would be escaped): a fresh
 * file without it holds trajectories only. With it, the file is read line by line as before.
 */
const TOMBSTONE_KEY = Buffer.from(',"discarded":');

export async function writeRunOutputs(dir: string, files: readonly BatchFile[], facts: RunFacts, fresh?: FreshRecords): Promise<MergeResult> {
  let stats = emptySummary();
  const target = join(dir, TRAJECTORIES_FILE);
  let tombstones = 0;
  const trajectories = await writeFileAtomicWith(target, async (out) => {
    let written = 0;
    for (const file of files) {
      if (fresh?.files.has(file.name)) {
        // Read synchronously: from the page cache it is quicker than a round trip through the thread pool.
        const content = readFileSync(file.path);
        if (!content.includes(TOMBSTONE_KEY)) {
          // Only trajectories: the file is copied as it is, without decoding and splitting it.
          written += lineCount(content);
          await out.writeFile(content);
          continue;
        }
        const kept: string[] = [];
        for (const line of content.toString('utf8').split('\n')) {
          if (line === '') continue;
          if (TOMBSTONE_LINE.test(line)) tombstones += 1;
          else kept.push(line);
        }
        written += kept.length;
        if (kept.length > 0) await out.write(`${kept.join('\n')}\n`);
        continue;
      }
      const lines = await readBatchFile(file);
      const kept: string[] = [];
      for (const { value, text, place } of lines) {
        if ('discarded' in value) {
          addTombstone(stats, runRecord('tombstone', value, place));
          tombstones += 1;
          continue;
        }
        addTrajectory(stats, runRecord('trajectory', value, place));
        kept.push(text);
      }
      written += kept.length;
      if (kept.length > 0) await out.write(`${kept.join('\n')}\n`);
    }
    return written;
  });
  if (fresh) stats = mergeSummaries(stats, fresh.summary);
  const summary = finaliseSummary(stats);
  await writeJsonAtomic(join(dir, STATISTICS_FILE), {
    run_name: facts.run_name,
    distribution: facts.distribution,
    total_prompts: facts.total_prompts,
    total_batches: files.length,
    batch_size: facts.batch_size,
    model: facts.model,
    completed_at: new Date().toISOString(),
    duration_seconds: Math.round(facts.duration_seconds * 100) / 100,
    ...summary,
  });
  return { trajectories, tombstones, summary };
}

/**
 * The outputs as the last invocation wrote them, when no batch file has changed since (a resume
 * that found everything done): rebuilding them would give the same records. Undefined otherwise.
 */
export async function unchangedRunOutputs(dir: string, files: readonly BatchFile[], totalPrompts: number): Promise<MergeResult | undefined> {
  try {
    const [merged, statistics] = await Promise.all([stat(join(dir, TRAJECTORIES_FILE)), stat(join(dir, STATISTICS_FILE))]);
    const built = Math.min(merged.mtimeMs, statistics.mtimeMs);
    // Synchronous, as a resume stats them on opening (runDirectory.ts).
    for (const file of files) if (statSync(file.path).mtimeMs > built) return undefined;
    const summary = JSON.parse(await readFile(join(dir, STATISTICS_FILE), 'utf8')) as StatisticsSummary & { total_prompts?: number };
    if (summary.total_prompts !== totalPrompts) return undefined;
    return { trajectories: summary.trajectories, tombstones: Object.values(summary.discarded).reduce((a, b) => a + b, 0), summary };
  } catch {
    return undefined;
  }
}

/** Lines of a batch file's content (each ends with a newline: batchAppender writes whole lines). */
function lineCount(content: Buffer): number {
  let lines = 0;
  for (let at = content.indexOf(0x0a); at !== -1; at = content.indexOf(0x0a, at + 1)) lines += 1;
  return lines;
}

/** A batch file's record, typed by its schema; one that does not match stops the merge at its line. */
function runRecord<S extends 'trajectory' | 'tombstone'>(schema: S, value: JsonObject, place: Place) {
  const checked = checkSchema(schema, value);
  if ('problem' in checked) throw new InputError(`a record of the run directory ${checked.problem}; move the file away or repair it, then resume`, place);
  return checked.value;
}
