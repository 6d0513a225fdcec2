// The numbers of `report`, computed by SQL over the analysis tables: the run summary in the shape the
// stream stage writes (summary.ts StatisticsSummary, so the two compare field for field), plus what
// only the HTML page shows (token and compression figures). Counts come from SQL; rates use the same
// percent() as the summary (Python's rounding), and quantiles are DuckDB's quantile_cont, the same
// interpolation as the summary's histograms.
import type { DuckDBConnection } from '@duckdb/node-api';
import { costStatistics, niceWidth, type Bin } from '@hermes-datagen/core';
import { queryRow, queryRows, type Row } from './duckdb/query.js';
import { quoteIdentifier } from './duckdb/tables.js';
import { percent } from '@hermes-datagen/core';
import {
  SUMMARY_FORMAT,
  type GroupStatistics,
  type StatisticsSummary,
  type SummaryDistribution,
  type ToolStatistics,
  type UsageTotals,
} from '@hermes-datagen/core';

export interface ReportData {
  readonly summary: StatisticsSummary;
  /** metadata.usage.total_tokens per trajectory, in equal-width bins up to the 95th percentile (the last holds the rest); empty when no record has usage. */
  readonly totalTokens: readonly Bin[];
  /** What hermes-compress did, in the terms of its own summary line and --metrics-file; null when no record has metadata.compression. */
  readonly compression: CompressionFigures | null;
}

export interface CompressionFigures {
  /** Trajectories with metadata.compression. */
  readonly trajectories: number;
  /** Of them, the ones hermes-compress compressed (status compressed; a skipped or unchanged record carries token counts too). */
  readonly compressed: number;
  /** Trajectories by metadata.compression.status (a record without one is under its own key, none). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Token totals over the records whose tokens were counted, errors left out, as hermes-compress totals them. */
  readonly counted: number;
  readonly tokens_before: number;
  readonly tokens_after: number;
}

export async function queryReport(connection: DuckDBConnection): Promise<ReportData> {
  return {
    summary: await querySummary(connection),
    totalTokens: await queryTokenBins(connection, 'total_tokens', 12),
    compression: await queryCompression(connection),
  };
}

export async function querySummary(connection: DuckDBConnection): Promise<StatisticsSummary> {
  const totals = await queryRow(
    connection,
    `SELECT count(*) AS trajectories,
            count(*) FILTER (WHERE completed) AS completed,
            count(*) FILTER (WHERE partial) AS partial,
            ${usageColumns()}
     FROM trajectories`,
  );
  const tools = await queryRows(connection, 'SELECT tool, sum(count) AS count, sum(success) AS success, sum(failure) AS failure FROM tool_stats GROUP BY tool');
  const reasoning = await queryRow(
    connection,
    `SELECT count(*) FILTER (WHERE role = 'gpt') AS total_assistant_turns,
            count(*) FILTER (WHERE has_reasoning) AS turns_with_reasoning
     FROM turns`,
  );
  const discarded = await queryRows(connection, 'SELECT reason, count(*) AS n FROM discarded GROUP BY reason');

  const trajectories = num(totals, 'trajectories');
  const completed = num(totals, 'completed');
  const partial = num(totals, 'partial');
  const toolStatistics: [string, ToolStatistics][] = tools.map((row) => {
    const [count, success, failure] = [num(row, 'count'), num(row, 'success'), num(row, 'failure')];
    return [
      str(row, 'tool'),
      { count, success, failure, success_rate: percent(success, success + failure), failure_rate: percent(failure, success + failure) },
    ];
  });
  const withReasoning = num(reasoning, 'turns_with_reasoning');
  const assistantTurns = num(reasoning, 'total_assistant_turns');
  const discardedCounts: [string, number][] = discarded.map((row) => [str(row, 'reason'), num(row, 'n')]);
  return {
    format: SUMMARY_FORMAT,
    trajectories,
    completed,
    completed_rate: percent(completed, trajectories),
    partial,
    partial_rate: percent(partial, trajectories),
    tool_statistics: byName(toolStatistics),
    tool_calls: toolStatistics.reduce((sum, [, s]) => sum + s.count, 0),
    tool_failures: toolStatistics.reduce((sum, [, s]) => sum + s.failure, 0),
    reasoning_statistics: {
      total_assistant_turns: assistantTurns,
      turns_with_reasoning: withReasoning,
      turns_without_reasoning: assistantTurns - withReasoning,
    },
    discarded_no_reasoning: discardedCounts.find(([reason]) => reason === 'no_reasoning')?.[1] ?? 0,
    discarded: byName(discardedCounts),
    turns: await queryDistribution(connection, 'turns'),
    api_calls: await queryDistribution(connection, 'api_calls'),
    usage: usageOf(totals),
    by_model: byName(await queryGroups(connection, 'SELECT record, model AS key FROM trajectories')),
    // A trajectory counts once in each toolset it names, however often it names it.
    by_toolset: byName(await queryGroups(connection, 'SELECT DISTINCT record, unnest(toolsets_used) AS key FROM trajectories')),
    ...(await queryCost(connection)),
  };
}

/** cost_usd and replayed_calls as the stream summary has them: a sub-agent's cost is in its parent's. */
async function queryCost(connection: DuckDBConnection): Promise<Pick<StatisticsSummary, 'cost_usd' | 'replayed_calls'>> {
  const models = await queryRows(
    connection,
    'SELECT model, count(*) AS trajectories, sum(cost_usd) AS usd FROM trajectories WHERE cost_usd IS NOT NULL AND parent_id IS NULL GROUP BY model',
  );
  const replayed = num(await queryRow(connection, 'SELECT coalesce(sum(replayed_calls), 0) AS n FROM trajectories'), 'n');
  return {
    ...(models.length > 0
      ? { cost_usd: costStatistics(new Map(models.map((row) => [str(row, 'model'), { trajectories: num(row, 'trajectories'), usd: num(row, 'usd') }]))) }
      : {}),
    ...(replayed > 0 ? { replayed_calls: replayed } : {}),
  };
}

/** The usage totals' columns; `table` qualifies the token columns in a join. */
function usageColumns(table = ''): string {
  const t = table === '' ? '' : `${table}.`;
  return `count(${t}prompt_tokens) AS usage_trajectories,
          coalesce(sum(${t}prompt_tokens), 0) AS prompt_tokens,
          coalesce(sum(${t}completion_tokens), 0) AS completion_tokens,
          coalesce(sum(${t}total_tokens), 0) AS total_tokens`;
}

function usageOf(row: Row): UsageTotals {
  return {
    trajectories: num(row, 'usage_trajectories'),
    prompt_tokens: num(row, 'prompt_tokens'),
    completion_tokens: num(row, 'completion_tokens'),
    total_tokens: num(row, 'total_tokens'),
  };
}

/** Distribution of a per-trajectory integer column of `trajectories`. */
async function queryDistribution(connection: DuckDBConnection, column: 'turns' | 'api_calls'): Promise<SummaryDistribution> {
  const c = quoteIdentifier(column);
  const stats = await queryRow(
    connection,
    `SELECT min(${c}) AS min, quantile_cont(${c}, 0.5) AS median, quantile_cont(${c}, 0.9) AS p90, max(${c}) AS max, coalesce(sum(${c}), 0) AS total FROM trajectories`,
  );
  const histogram = await queryRows(connection, `SELECT ${c} AS value, count(*) AS n FROM trajectories GROUP BY ${c} ORDER BY ${c}`);
  return {
    min: optionalNum(stats, 'min'),
    median: optionalNum(stats, 'median'),
    p90: optionalNum(stats, 'p90'),
    max: optionalNum(stats, 'max'),
    total: num(stats, 'total'),
    histogram: Object.fromEntries(histogram.map((row) => [String(num(row, 'value')), num(row, 'n')])),
  };
}

/** Per-group sums; `memberships` selects (record, key) pairs, one per trajectory and group. */
async function queryGroups(connection: DuckDBConnection, memberships: string): Promise<[string, GroupStatistics][]> {
  const rows = await queryRows(
    connection,
    `WITH record_tools AS (SELECT record, sum(count) AS tool_calls, sum(failure) AS tool_failures FROM tool_stats GROUP BY record),
          memberships AS (${memberships})
     SELECT m.key,
            count(*) AS trajectories,
            count(*) FILTER (WHERE t.completed) AS completed,
            count(*) FILTER (WHERE t.partial) AS partial,
            coalesce(sum(t.api_calls), 0) AS api_calls_total,
            coalesce(sum(r.tool_calls), 0) AS tool_calls,
            coalesce(sum(r.tool_failures), 0) AS tool_failures,
            ${usageColumns('t')}
     FROM memberships m JOIN trajectories t USING (record) LEFT JOIN record_tools r USING (record)
     GROUP BY m.key`,
  );
  return rows.map((row) => {
    const [trajectories, completed, partial] = [num(row, 'trajectories'), num(row, 'completed'), num(row, 'partial')];
    return [
      str(row, 'key'),
      {
        trajectories,
        completed,
        completed_rate: percent(completed, trajectories),
        partial,
        partial_rate: percent(partial, trajectories),
        api_calls_total: num(row, 'api_calls_total'),
        tool_calls: num(row, 'tool_calls'),
        tool_failures: num(row, 'tool_failures'),
        usage: usageOf(row),
      },
    ];
  });
}

/** About `target` equal-width bins of a token column over the trajectories that have it. */
async function queryTokenBins(connection: DuckDBConnection, column: 'total_tokens', target: number): Promise<Bin[]> {
  const c = quoteIdentifier(column);
  // The bins span the smallest value to the 95th percentile, and the last one also holds everything above
  // it: one outlier (a trajectory of 34k tokens among ones of 2-3k) would otherwise put the rest in one bin.
  const range = await queryRow(connection, `SELECT min(${c}) AS lo, quantile_disc(${c}, 0.95) AS p95, max(${c}) AS max FROM trajectories`);
  const lo = optionalNum(range, 'lo');
  const hi = optionalNum(range, 'p95');
  const max = optionalNum(range, 'max');
  if (lo === null || hi === null || max === null) return [];
  const width = niceWidth((hi - lo + 1) / target);
  const start = Math.floor(lo / width) * width;
  const bins = Math.floor((hi - start) / width) + 1;
  const rows = await queryRows(
    connection,
    `SELECT least(floor((${c} - ${start}) / ${width}), ${bins - 1})::BIGINT AS bin, count(*) AS n FROM trajectories WHERE ${c} IS NOT NULL GROUP BY bin`,
  );
  const counts = new Map(rows.map((row) => [num(row, 'bin'), num(row, 'n')]));
  return Array.from({ length: bins }, (_, i) => ({
    from: start + i * width,
    to: i === bins - 1 ? Math.max(max, start + (i + 1) * width - 1) : start + (i + 1) * width - 1,
    count: counts.get(i) ?? 0,
  }));
}

// A record with metadata.compression but no status (written by another tool) counts as compressed when it
// lost tokens; hermes-compress's own records say what happened.
async function queryCompression(connection: DuckDBConnection): Promise<ReportData['compression']> {
  const compressed = `(compression_status = 'compressed' OR (compression_status IS NULL AND tokens_after < tokens_before))`;
  const counted = `(tokens_before IS NOT NULL AND compression_status IS DISTINCT FROM 'error')`;
  const withCompression = 'compression_status IS NOT NULL OR tokens_before IS NOT NULL OR tokens_after IS NOT NULL';
  const row = await queryRow(
    connection,
    `SELECT count(*) AS trajectories,
            count(*) FILTER (WHERE ${compressed}) AS compressed,
            count(*) FILTER (WHERE ${counted}) AS counted,
            coalesce(sum(tokens_before) FILTER (WHERE ${counted}), 0) AS tokens_before,
            coalesce(sum(tokens_after) FILTER (WHERE ${counted}), 0) AS tokens_after
     FROM trajectories WHERE ${withCompression}`,
  );
  const trajectories = num(row, 'trajectories');
  if (trajectories === 0) return null;
  const statuses = await queryRows(
    connection,
    `SELECT coalesce(compression_status, 'none') AS status, count(*) AS n FROM trajectories WHERE ${withCompression} GROUP BY status`,
  );
  return {
    trajectories,
    compressed: num(row, 'compressed'),
    statuses: byName(statuses.map((r) => [str(r, 'status'), num(r, 'n')] as const)),
    counted: num(row, 'counted'),
    tokens_before: num(row, 'tokens_before'),
    tokens_after: num(row, 'tokens_after'),
  };
}

// Names are data: sorted by code unit as the stream summary sorts them, and set with
// Object.fromEntries so that a name like "__proto__" stays an ordinary key.
function byName<V>(entries: readonly (readonly [string, V])[]): Record<string, V> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function num(row: Row, key: string): number {
  const value = row[key];
  if (typeof value !== 'number') throw new Error(`expected a number in column ${key}, got ${JSON.stringify(value)}`);
  return value;
}

function optionalNum(row: Row, key: string): number | null {
  return row[key] === null ? null : num(row, key);
}

function str(row: Row, key: string): string {
  const value = row[key];
  if (typeof value !== 'string') throw new Error(`expected text in column ${key}, got ${JSON.stringify(value)}`);
  return value;
}
