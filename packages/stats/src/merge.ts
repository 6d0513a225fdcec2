// `hermes-stats merge`: shard summaries into the summary of their union (summary.ts keeps only
// counts that add up, so the result equals one pass over all the shards' records).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError } from '@hermes-datagen/core';
import { emptySummary, finaliseSummary, mergeSummaries, summaryFromFile, type StatisticsSummary } from './summary.js';

export async function mergeSummaryFiles(paths: readonly string[], cwd: string): Promise<StatisticsSummary> {
  let merged = emptySummary();
  for (const path of paths) merged = mergeSummaries(merged, summaryFromFile(await readJson(resolve(cwd, path), path), path));
  return finaliseSummary(merged);
}

async function readJson(path: string, shown: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${shown}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new InputError(`${shown} is not JSON (${(err as Error).message}); give summaries written by hermes-stats --summary`);
  }
}
