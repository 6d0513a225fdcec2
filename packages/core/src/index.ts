// The public surface of @hermes-datagen/core: every name a CLI uses, grouped by concern. The endpoint
// configuration and model client are the '@hermes-datagen/core/endpoint' subpath (endpointIndex.ts); tests reach
// the remaining helpers as '@hermes-datagen/core/internal/<module>.js'.

// Records: the shapes the tools read and write, their schemas, ids, and the JSONL reader and writer.
export type {
  AssistantMessage,
  ChatMessage,
  ChatToolCall,
  Checkpoint,
  CheckpointEntry,
  CompleteRun,
  CompressionMetrics,
  PromptRow,
  ReasoningDetail,
  Reject,
  Tombstone,
  ToolDefinition,
  ToolStats,
  Trajectory,
  Turn,
  Usage,
} from './model.js';
export { checkSchema, validator, type JsonObject } from './schemas.js';
export { readRecords, type DataRecord, type InputRecord, type OnError, type TombstoneRecord } from './records.js';
export { JsonlWriter } from './writer.js';
export { firstHumanTurn, promptId, trajectoryId } from './ids.js';
export { isPlainObject } from './plainObject.js';
export { pythonJsonDumps } from './pythonJson.js';
export { pythonStripChars } from './pythonText.js';

// Messages and ShareGPT: an OpenAI-style conversation turned into Hermes turns.
export { toShareGpt } from './sharegpt.js';

// Reading turns: the tagged blocks inside a gpt or tool turn, and the reasoning a reply carries.
export {
  THINK_TAG,
  TOOL_CALL_TAG,
  TOOL_RESPONSE_TAG,
  offeredToolNames,
  parseGptValue,
  parseToolCallBlock,
  parseToolValue,
  type ParsedGptValue,
  type ParsedToolCall,
  type ParsedToolResponse,
} from './turns.js';
export { splitTagBlocks, tagTokens, type TagToken } from './tagBlocks.js';
export { extractReasoning } from './think.js';

// OpenAI chat: a trajectory as the messages and tools SFT trainers read (to-atropos --emit chat, stats card).
export {
  DEFAULT_REASONING_FIELD,
  parseReasoningPlacement,
  toOpenAIChat,
  type OpenAIChatMessage,
  type OpenAIToolSchema,
  type ReasoningPlacement,
} from './openaiChat.js';

// Rules: what counts as reasoning, and as a tool call that succeeded.
export { conversationReasoningStats, gptTurnHasReasoning, parsedGptHasReasoning, reasoningStats } from './reasoning.js';
export { extractToolStats, normaliseToolStats, toolCallSucceeded, toolErrorCounts, toolStatsFromConversations, type ToolNames } from './toolStats.js';

// Registry and toolsets: the tool definitions, the --tools-registry option, and seeded sampling.
export { loadToolRegistry, type Distribution, type ToolRegistry } from './registry.js';
export { toolsRegistryOption, type ToolsRegistryArgs } from './toolsRegistryOption.js';
export { createRng, type Rng } from './rng.js';

// CLI runner and errors: defineCommand/main, the run context, exit codes, logging and forced exit.
export { VERSION, checkWritableTarget, defineCommand, main, type Argv, type CliSpec, type RunContext, type StreamArgs } from './cli.js';
export {
  BrokenPipe,
  ChecksFailedError,
  ExitCode,
  HermesError,
  InputError,
  RetryableError,
  UsageError,
  formatPlace,
  outputFailure,
  type Place,
} from './errors.js';
export { Logger, wantsColor } from './logger.js';
export { onForcedExit } from './forcedExit.js';

// Files: files named by options, and files written whole or not at all.
export { loadOptionFile, loadOptionFileIfPresent, optionFileError, parseOptionFile, type OptionFile } from './optionFile.js';
export { editDistance } from './usageMessages.js';
export { writeFileAtomic, writeFileAtomicWith, writeJsonAtomic } from './atomicFile.js';

// Text, tokens and secrets: token counting, the API key, and secrets found in text.
export { DEFAULT_TOKEN_ENCODING, TOKEN_ENCODINGS, loadHfTokenCounter, loadTokenCounter, type TokenCounter, type TokenEncoding } from './tokenizer.js';
export { buildHfTokenizer, readHfTokenizerFiles, type TokenizerOptions } from './hfTokenizer.js';
export {
  CostMeter,
  loadPrices,
  meteredClient,
  pricesOption,
  replyCost,
  roundUsd,
  type PriceTable,
  type PricesArgs,
} from './prices.js';
export { ApiKey, holdsSecret, keyFingerprint, keyForms, redact } from './secrets.js';
export { findSecrets, mayHoldSecret } from './secretPatterns.js';

// Statistics: statistics.json and hermes-stats' mergeable summary (written by generate's run directory and
// hermes-stats, checked by hermes-verify) and the report both render.
export {
  SUMMARY_FORMAT,
  addTombstone,
  addTrajectory,
  costStatistics,
  emptySummary,
  finaliseSummary,
  mergeSummaries,
  summaryFromFile,
  type GroupStatistics,
  type StatisticsSummary,
  type SummaryDistribution,
  type ToolStatistics,
  type UsageTotals,
} from './statistics/summary.js';
export { NOT_PRICED, renderReportText, shortNumber } from './statistics/reportText.js';
export { binHistogram, binLabel, niceWidth, type Bin } from './statistics/bins.js';
export { percent } from './statistics/rates.js';
