// `hermes-stats merge`: shard summaries into the summary of their union (summary.ts keeps only
// counts that add up, so the result equals one pass over all the shards' records).
import { loadOptionFile } from '@hermes-datagen/core';
import { emptySummary, finaliseSummary, mergeSummaries, summaryFromFile, type StatisticsSummary } from '@hermes-datagen/core';

/** The summaries are the command's input (operands): a missing or broken one exits 3. */
export function mergeSummaryFiles(paths: readonly string[], cwd: string): StatisticsSummary {
  let merged = emptySummary();
  for (const path of paths) {
    const value = loadOptionFile({ option: 'summary', path, cwd, role: 'input' }, 'json');
    merged = mergeSummaries(merged, summaryFromFile(value, path));
  }
  return finaliseSummary(merged);
}
