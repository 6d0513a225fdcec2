// The public surface of @hermes-datagen/core: the only way the CLIs reach it.
export * from './model.js';
export * from './pythonJson.js';
export * from './losslessJson.js';
export * from './pythonText.js';
export * from './envFile.js';
export * from './errors.js';
export * from './schemas.js';
export * from './lineReader.js';
export * from './records.js';
export * from './writer.js';
export * from './atomicFile.js';
export * from './forcedExit.js';
export * from './counters.js';
export * from './logger.js';
export * from './progress.js';
export * from './peakRss.js';
export * from './cli.js';
export * from './plainObject.js';
export * from './tagBlocks.js';
export * from './turns.js';
export * from './toolCalls.js';
export * from './think.js';
export * from './sharegpt.js';
export * from './ids.js';
export * from './toolStats.js';
export * from './reasoning.js';
export * from './rng.js';
export * from './registry.js';
export * from './toolsRegistryOption.js';
export * from './optionFile.js';
export * from './tokenizer.js';
export * from './secrets.js';
export * from './secretPatterns.js';
// statistics.json and hermes-stats' mergeable summary: written by generate's run directory and
// hermes-stats, checked by hermes-verify, rendered by both generate's end summary and stats report.
export {
  SUMMARY_FORMAT,
  emptySummary,
  addTrajectory,
  addTombstone,
  mergeSummaries,
  finaliseSummary,
  summaryFromFile,
  type Summary,
  type StatisticsSummary,
  type ToolStatistics,
  type SummaryDistribution,
  type GroupStatistics,
  type UsageTotals,
} from './statistics/summary.js';
export { renderReportText, shortNumber } from './statistics/reportText.js';
export { binHistogram, binLabel, niceWidth, type Bin } from './statistics/bins.js';
export { percent } from './statistics/rates.js';
