// The run summary: upstream's statistics.json (docs/record-format.md#statistics) plus hermes-stats' own
// numbers. A Summary holds only counts that add up (sums, exact histograms), so summaries of shards
// merge into exactly the summary of one pass over all of them; rates and percentiles are derived
// from those counts when the file is written, and read back by summaryFromFile for `merge`.
//
//   const summary = emptySummary();
//   addTrajectory(summary, record);        // a normalised record (tool_stats already over the registry)
//   addTombstone(summary, tombstone);
//   const file = finaliseSummary(mergeSummaries(summary, summaryFromFile(otherFile, 'other.json')));
import { InputError } from '../errors.js';
import type { Tombstone, ToolStat, Trajectory } from '../model.js';
import { conversationReasoningStats, type ReasoningStats } from '../reasoning.js';
import { validator } from '../schemas.js';
import { addToHistogram, distribution, histogramFrom, type ValueDistribution, type Histogram } from './percentiles.js';
import { roundUsd } from '../prices.js';
import { percent } from './rates.js';

/** Marks a statistics.json written by hermes-stats, which carries what `merge` needs. */
export const SUMMARY_FORMAT = 'hermes-stats-summary/1';

export interface UsageTotals {
  /** Trajectories whose metadata.usage was present; only those add to the token sums. */
  trajectories: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ReasoningTotals {
  total_assistant_turns: number;
  turns_with_reasoning: number;
  turns_without_reasoning: number;
}

/** Sums over one group of trajectories (one model, one toolset). */
export interface GroupCounts {
  trajectories: number;
  completed: number;
  partial: number;
  api_calls_total: number;
  /** Sum of tool_stats count / failure over all tools. */
  tool_calls: number;
  tool_failures: number;
  usage: UsageTotals;
}

/** The mergeable state. Maps, not objects, because tool, model and toolset names are data. */
export interface Summary {
  trajectories: number;
  completed: number;
  partial: number;
  usage: UsageTotals;
  /** Sums of the records' tool_stats, per tool name (tools never called or answered may be left out). */
  tools: Map<string, ToolStat>;
  reasoning: ReasoningTotals;
  /** Tombstones per `discarded` reason. */
  discarded: Map<string, number>;
  /** conversations.length per trajectory. */
  turns: Histogram;
  apiCalls: Histogram;
  byModel: Map<string, GroupCounts>;
  /** Each entry of a record's toolsets_used counts that record once. */
  byToolset: Map<string, GroupCounts>;
  /**
   * metadata.cost_usd per model, over the records that carry one and are no sub-agent's (a record's
   * cost includes its sub-agents', so theirs would count twice).
   */
  cost: Map<string, CostTotals>;
  /** Model calls replayed from a run's call journal instead of bought again (metadata.replayed_calls). */
  replayedCalls: number;
}

export interface CostTotals {
  trajectories: number;
  usd: number;
}

/** statistics.json's cost_usd: present only when some record was priced (never a made-up number). */
export interface CostStatistics {
  /** USD over the priced trajectories. */
  total: number;
  trajectories: number;
  per_trajectory: number;
  by_model: Record<string, { trajectories: number; total: number; per_trajectory: number }>;
}

// ---- The file (schemas/statistics.schema.json), as finaliseSummary writes it.

export interface ToolStatistics extends ToolStat {
  success_rate: number;
  failure_rate: number;
}

export interface SummaryDistribution extends ValueDistribution {
  /** Sum of all values. */
  total: number;
}

export interface GroupStatistics extends GroupCounts {
  completed_rate: number;
  partial_rate: number;
}

export interface StatisticsSummary {
  format: typeof SUMMARY_FORMAT;
  trajectories: number;
  completed: number;
  completed_rate: number;
  partial: number;
  partial_rate: number;
  /** Only tools that were called (or answered), sorted by name, as upstream lists only those. */
  tool_statistics: Record<string, ToolStatistics>;
  tool_calls: number;
  tool_failures: number;
  reasoning_statistics: ReasoningTotals;
  discarded_no_reasoning: number;
  discarded: Record<string, number>;
  turns: SummaryDistribution;
  api_calls: SummaryDistribution;
  usage: UsageTotals;
  by_model: Record<string, GroupStatistics>;
  by_toolset: Record<string, GroupStatistics>;
  cost_usd?: CostStatistics;
  replayed_calls?: number;
}

const emptyUsage = (): UsageTotals => ({ trajectories: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
const emptyGroup = (): GroupCounts => ({ trajectories: 0, completed: 0, partial: 0, api_calls_total: 0, tool_calls: 0, tool_failures: 0, usage: emptyUsage() });

export function emptySummary(): Summary {
  return {
    trajectories: 0,
    completed: 0,
    partial: 0,
    usage: emptyUsage(),
    tools: new Map(),
    reasoning: { total_assistant_turns: 0, turns_with_reasoning: 0, turns_without_reasoning: 0 },
    discarded: new Map(),
    turns: new Map(),
    apiCalls: new Map(),
    byModel: new Map(),
    byToolset: new Map(),
    cost: new Map(),
    replayedCalls: 0,
  };
}

/**
 * Adds one trajectory (valid against the trajectory schema) to the summary, in place; `reasoning`
 * is its conversationReasoningStats, for a caller that has them already.
 */
export function addTrajectory(summary: Summary, record: Trajectory, reasoning: ReasoningStats = conversationReasoningStats(record.conversations)): void {
  summary.trajectories += 1;
  if (record.completed) summary.completed += 1;
  if (record.partial) summary.partial += 1;
  addUsage(summary.usage, record.metadata.usage);
  // A normalised record has a key for every registry tool, mostly zeros; only the called ones reach the file.
  let toolCalls = 0;
  let toolFailures = 0;
  for (const [name, stat] of Object.entries(record.tool_stats)) {
    toolCalls += stat.count;
    toolFailures += stat.failure;
    if (stat.count > 0 || stat.success > 0 || stat.failure > 0) addToolStat(summary.tools, name, stat);
  }
  addReasoning(summary.reasoning, reasoning);
  addToHistogram(summary.turns, record.conversations.length);
  addToHistogram(summary.apiCalls, record.api_calls);

  const { cost_usd: cost, replayed_calls: replayed } = record.metadata;
  if (typeof cost === 'number' && record.metadata.parent_id === undefined) addCost(summary.cost, record.metadata.model, { trajectories: 1, usd: cost });
  if (typeof replayed === 'number') summary.replayedCalls += replayed;

  const own = groupCountsOf(record, toolCalls, toolFailures);
  addGroup(summary.byModel, record.metadata.model, own);
  for (const toolset of new Set(record.toolsets_used)) addGroup(summary.byToolset, toolset, own);
}

export function addTombstone(summary: Summary, tombstone: Tombstone): void {
  addCount(summary.discarded, tombstone.discarded, 1);
}

/** A new summary of both inputs' trajectories; the inputs are left as they are. */
export function mergeSummaries(a: Summary, b: Summary): Summary {
  const merged = emptySummary();
  for (const part of [a, b]) {
    merged.trajectories += part.trajectories;
    merged.completed += part.completed;
    merged.partial += part.partial;
    addUsage(merged.usage, part.usage, part.usage.trajectories);
    for (const [name, stat] of part.tools) addToolStat(merged.tools, name, stat);
    addReasoning(merged.reasoning, part.reasoning);
    for (const [reason, n] of part.discarded) addCount(merged.discarded, reason, n);
    for (const [value, n] of part.turns) addToHistogram(merged.turns, value, n);
    for (const [value, n] of part.apiCalls) addToHistogram(merged.apiCalls, value, n);
    for (const [model, counts] of part.byModel) addGroup(merged.byModel, model, counts);
    for (const [toolset, counts] of part.byToolset) addGroup(merged.byToolset, toolset, counts);
    for (const [model, cost] of part.cost) addCost(merged.cost, model, cost);
    merged.replayedCalls += part.replayedCalls;
  }
  return merged;
}

/** The statistics.json content: the counts plus everything derived from them, names sorted. */
export function finaliseSummary(summary: Summary): StatisticsSummary {
  const called = [...summary.tools].filter(([, s]) => s.count > 0 || s.success > 0 || s.failure > 0);
  let toolCalls = 0;
  let toolFailures = 0;
  for (const [, stat] of called) {
    toolCalls += stat.count;
    toolFailures += stat.failure;
  }
  return {
    format: SUMMARY_FORMAT,
    trajectories: summary.trajectories,
    completed: summary.completed,
    completed_rate: percent(summary.completed, summary.trajectories),
    partial: summary.partial,
    partial_rate: percent(summary.partial, summary.trajectories),
    tool_statistics: sortedRecord(called, ({ count, success, failure }) => ({
      count,
      success,
      failure,
      success_rate: percent(success, success + failure),
      failure_rate: percent(failure, success + failure),
    })),
    tool_calls: toolCalls,
    tool_failures: toolFailures,
    reasoning_statistics: { ...summary.reasoning },
    discarded_no_reasoning: summary.discarded.get('no_reasoning') ?? 0,
    discarded: sortedRecord([...summary.discarded], (n) => n),
    turns: summaryDistribution(summary.turns),
    api_calls: summaryDistribution(summary.apiCalls),
    usage: { ...summary.usage },
    by_model: sortedRecord([...summary.byModel], groupStatistics),
    by_toolset: sortedRecord([...summary.byToolset], groupStatistics),
    ...(summary.cost.size > 0 ? { cost_usd: costStatistics(summary.cost) } : {}),
    ...(summary.replayedCalls > 0 ? { replayed_calls: summary.replayedCalls } : {}),
  };
}

/** statistics.json's cost_usd from the totals per model (also the report's, from SQL). */
export function costStatistics(cost: ReadonlyMap<string, CostTotals>): CostStatistics {
  const all: CostTotals = { trajectories: 0, usd: 0 };
  for (const part of cost.values()) {
    all.trajectories += part.trajectories;
    all.usd += part.usd;
  }
  const perTrajectory = ({ trajectories, usd }: CostTotals): number => (trajectories === 0 ? 0 : roundUsd(usd / trajectories));
  return {
    total: roundUsd(all.usd),
    trajectories: all.trajectories,
    per_trajectory: perTrajectory(all),
    by_model: sortedRecord([...cost], (part) => ({ trajectories: part.trajectories, total: roundUsd(part.usd), per_trajectory: perTrajectory(part) })),
  };
}

function addCost(costs: Map<string, CostTotals>, model: string, part: CostTotals): void {
  const sum = costs.get(model);
  if (sum === undefined) costs.set(model, { ...part });
  else {
    sum.trajectories += part.trajectories;
    sum.usd += part.usd;
  }
}

/**
 * The Summary behind a file that finaliseSummary wrote (the inverse of finaliseSummary). A
 * statistics.json without the hermes-stats fields (e.g. upstream's) has no histograms to merge
 * exactly, so it is refused with an InputError naming `source`.
 */
export function summaryFromFile(content: unknown, source: string): Summary {
  const problem = validator('statistics')(content);
  if (problem) throw new InputError(`${source} ${problem}`);
  const file = content as Partial<StatisticsSummary>;
  if (file.format !== SUMMARY_FORMAT) {
    throw new InputError(
      `${source} is not a hermes-stats summary (no "format": "${SUMMARY_FORMAT}"): only files written by hermes-stats --summary or merge can be merged`,
    );
  }
  const full = file as StatisticsSummary;
  const summary = emptySummary();
  summary.trajectories = full.trajectories;
  summary.completed = full.completed;
  summary.partial = full.partial;
  addUsage(summary.usage, full.usage, full.usage.trajectories);
  for (const [name, { count, success, failure }] of Object.entries(full.tool_statistics)) addToolStat(summary.tools, name, { count, success, failure });
  addReasoning(summary.reasoning, full.reasoning_statistics);
  for (const [reason, n] of Object.entries(full.discarded)) addCount(summary.discarded, reason, n);
  summary.turns = histogramFrom(full.turns.histogram);
  summary.apiCalls = histogramFrom(full.api_calls.histogram);
  for (const [model, group] of Object.entries(full.by_model)) addGroup(summary.byModel, model, group);
  for (const [toolset, group] of Object.entries(full.by_toolset)) addGroup(summary.byToolset, toolset, group);
  for (const [model, part] of Object.entries(full.cost_usd?.by_model ?? {})) addCost(summary.cost, model, { trajectories: part.trajectories, usd: part.total });
  summary.replayedCalls = full.replayed_calls ?? 0;
  return summary;
}

/** One record's group counts; its tool_stats' sums are counted by the caller, in its one pass over them. */
function groupCountsOf(record: Trajectory, toolCalls: number, toolFailures: number): GroupCounts {
  const counts = emptyGroup();
  counts.trajectories = 1;
  counts.completed = record.completed ? 1 : 0;
  counts.partial = record.partial ? 1 : 0;
  counts.api_calls_total = record.api_calls;
  counts.tool_calls = toolCalls;
  counts.tool_failures = toolFailures;
  addUsage(counts.usage, record.metadata.usage);
  return counts;
}

function addGroup(groups: Map<string, GroupCounts>, key: string, counts: GroupCounts): void {
  let group = groups.get(key);
  if (!group) {
    group = emptyGroup();
    groups.set(key, group);
  }
  group.trajectories += counts.trajectories;
  group.completed += counts.completed;
  group.partial += counts.partial;
  group.api_calls_total += counts.api_calls_total;
  group.tool_calls += counts.tool_calls;
  group.tool_failures += counts.tool_failures;
  addUsage(group.usage, counts.usage, counts.usage.trajectories);
}

/** Adds token counts; `trajectories` says how many trajectories they stand for (1 for one record's usage). */
function addUsage(total: UsageTotals, usage: Omit<UsageTotals, 'trajectories'> | undefined, trajectories = 1): void {
  if (!usage) return;
  total.trajectories += trajectories;
  total.prompt_tokens += usage.prompt_tokens;
  total.completion_tokens += usage.completion_tokens;
  total.total_tokens += usage.total_tokens;
}

function addToolStat(tools: Map<string, ToolStat>, name: string, stat: ToolStat): void {
  const sum = tools.get(name) ?? { count: 0, success: 0, failure: 0 };
  sum.count += stat.count;
  sum.success += stat.success;
  sum.failure += stat.failure;
  tools.set(name, sum);
}

function addReasoning(total: ReasoningTotals, part: ReasoningTotals): void {
  total.total_assistant_turns += part.total_assistant_turns;
  total.turns_with_reasoning += part.turns_with_reasoning;
  total.turns_without_reasoning += part.turns_without_reasoning;
}

function addCount(counts: Map<string, number>, key: string, n: number): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

function summaryDistribution(histogram: Histogram): SummaryDistribution {
  let total = 0;
  for (const [value, n] of histogram) total += value * n;
  const { min, median, p90, max, histogram: exact } = distribution(histogram);
  return { min, median, p90, max, total, histogram: exact };
}

function groupStatistics(counts: GroupCounts): GroupStatistics {
  return {
    trajectories: counts.trajectories,
    completed: counts.completed,
    completed_rate: percent(counts.completed, counts.trajectories),
    partial: counts.partial,
    partial_rate: percent(counts.partial, counts.trajectories),
    api_calls_total: counts.api_calls_total,
    tool_calls: counts.tool_calls,
    tool_failures: counts.tool_failures,
    usage: { ...counts.usage },
  };
}

// Object.fromEntries defines own properties, so a name like "__proto__" stays an ordinary key.
function sortedRecord<V, R>(entries: readonly (readonly [string, V])[], map: (value: V) => R): Record<string, R> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => [key, map(value)]));
}
