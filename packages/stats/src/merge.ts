// `hermes-stats merge`: shard summaries into the summary of their union (summary.ts keeps only
// counts that add up, so the result equals one pass over all the shards' records).
import { loadOptionFile, optionFileError, parseOptionFile, type OptionFile } from '@hermes-datagen/core';
import { emptySummary, finaliseSummary, mergeSummaries, summaryFromFile, type StatisticsSummary } from '@hermes-datagen/core';

/** The summaries are the command's input (operands): a missing or broken one exits 3. */
export function mergeSummaryFiles(paths: readonly string[], cwd: string): StatisticsSummary {
  let merged = emptySummary();
  for (const path of paths) {
    const file: OptionFile = { option: 'summary', path, cwd, role: 'input' };
    const text = loadOptionFile(file, 'text');
    // The usual mistake is a records file (run.jsonl) where its summary belongs: say that, not where its JSON breaks.
    if (isJsonLines(text)) {
      throw optionFileError(
        file,
        "not a summary file: it holds JSON lines (records); merge takes the files `hermes-stats --summary FILE` writes, or a run directory's statistics.json",
      );
    }
    merged = mergeSummaries(merged, summaryFromFile(parseOptionFile(file, text, 'json'), path));
  }
  return finaliseSummary(merged);
}

/** Whether the text is more than one line and its first line is a JSON object by itself. */
function isJsonLines(text: string): boolean {
  const end = text.indexOf('\n');
  if (end < 0 || text.slice(end + 1).trim() === '') return false;
  try {
    const first: unknown = JSON.parse(text.slice(0, end));
    return typeof first === 'object' && first !== null && !Array.isArray(first);
  } catch {
    return false;
  }
}
