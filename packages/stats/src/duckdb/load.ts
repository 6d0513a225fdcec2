// Inputs -> the analysis tables (tables.ts), one record at a time through DuckDB appenders.
//
// Why the rows are made here, in Node, and not by DuckDB's read_ndjson with SQL over the JSON: the
// turns, tool calls and reasoning flags then come from core's own parsers (parseGptValue,
// parseToolValue, gptTurnHasReasoning, toolCallSucceeded) and a trajectory's tool_stats from the stream
// stage's own normaliser, so `report` gives the numbers of the stream summary and hermes-filter's rules
// by construction; the success rule (docs/rules.md) and the nested/unclosed tag rules would not survive a rewrite
// as regexes. Records go through core's reader, so gzip, bad lines, --on-error and --rejects behave as
// in every other command. Memory stays bounded: one batch of records is in flight, only small rows
// (no conversation text) reach DuckDB, and DuckDB spills past its memory limit.
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { LIST, VARCHAR } from '@duckdb/node-api';
import {
  gptTurnHasReasoning,
  loadToolRegistry,
  parseGptValue,
  parseToolValue,
  toolCallSucceeded,
  TOOL_CALL_TAG,
  type InputRecord,
  type Place,
  type RunContext,
  type Tombstone,
  type Trajectory,
  type Turn,
} from '@hermes-datagen/core';
import { ToolStatsNormaliser } from '../normalise.js';
import type { AnalysisDatabase } from './database.js';
import type { ResolvedInputs, RunDirectory } from './inputs.js';
import { createTablesSql } from './tables.js';

export interface LoadCounts {
  trajectories: number;
  discarded: number;
}

/** Creates the tables (replacing any) and fills them from the inputs; ctx reads `inputs.files`. */
export async function loadInputs(db: AnalysisDatabase, ctx: RunContext, inputs: ResolvedInputs): Promise<LoadCounts> {
  await db.connection.run(createTablesSql());
  const rows = await TableRows.open(db.connection);
  // The registry only decides which all-zero entries a normalised record has, and those are not stored.
  const normaliser = new ToolStatsNormaliser(loadToolRegistry(), false);
  const counts: LoadCounts = { trajectories: 0, discarded: 0 };
  let record = 0;
  let flushedAt = 0;
  try {
    // With no file to read, core's reader would fall back to stdin.
    const batches: AsyncIterable<InputRecord[]> | InputRecord[][] = inputs.files.length > 0 ? ctx.readRecords({ tombstones: true }) : [];
    for await (const batch of batches) {
      for (const input of batch) {
        const run = inputs.runOfFile.get(input.place.source) ?? null;
        if (input.kind === 'tombstone') {
          rows.discarded(record++, input.value, input.place, run);
          counts.discarded += 1;
          continue;
        }
        const result = normaliser.normalise(input.value);
        if ('problem' in result) {
          await ctx.rejectRecord(input, result.problem);
          continue;
        }
        rows.trajectory(record++, result.record, input.place, run);
        counts.trajectories += 1;
      }
      if (record - flushedAt >= FLUSH_RECORDS) {
        rows.flush();
        flushedAt = record;
      }
    }
    for (const run of inputs.runs) rows.run(run);
  } finally {
    rows.close();
  }
  return counts;
}

/** A parsed line that is not a trajectory, under the same --on-error / --rejects policy as a bad line. */

const TEXT_LIST = LIST(VARCHAR);

/**
 * An appender holds its rows outside DuckDB's memory limit until it flushes, and flushes by itself only
 * every 204,800 rows: flushing every few thousand records keeps that buffer small, so memory does not
 * grow with the input.
 */
const FLUSH_RECORDS = 4096;

/** One appender per table; each method appends one row in the column order of tables.ts. */
class TableRows {
  private constructor(
    private readonly trajectories: Row,
    private readonly turns: Row,
    private readonly toolCalls: Row,
    private readonly toolStats: Row,
    private readonly tombstones: Row,
    private readonly runs: Row,
  ) {}

  public static async open(connection: DuckDBConnection): Promise<TableRows> {
    const row = async (table: string): Promise<Row> => new Row(await connection.createAppender(table));
    return new TableRows(
      await row('trajectories'),
      await row('turns'),
      await row('tool_calls'),
      await row('tool_stats'),
      await row('discarded'),
      await row('runs'),
    );
  }

  public trajectory(record: number, t: Trajectory, place: Place, run: string | null): void {
    const { metadata } = t;
    const usage = metadata.usage;
    const compression = metadata.compression;
    this.trajectories
      .bigint(record)
      .text(t.id ?? null)
      .text(run)
      .text(place.source)
      .bigint(place.line)
      .bigint(t.prompt_index)
      .text(metadata.model)
      .bigint(metadata.batch_num)
      .text(metadata.timestamp)
      .bool(t.completed)
      .bool(t.partial)
      .bigint(t.api_calls)
      .int(t.conversations.length)
      .textList(t.toolsets_used)
      .bigint(usage?.prompt_tokens ?? null)
      .bigint(usage?.completion_tokens ?? null)
      .bigint(usage?.total_tokens ?? null)
      .bigint(compression?.tokens_before ?? null)
      .bigint(compression?.tokens_after ?? null)
      .text(compression?.status ?? null)
      .double(metadata.wall_time_s ?? null)
      .text(metadata.endpoint_host ?? null)
      .text(typeof metadata.run_name === 'string' ? metadata.run_name : null)
      .text(typeof metadata.trace_id === 'string' ? metadata.trace_id : null)
      .text(typeof metadata.parent_id === 'string' ? metadata.parent_id : null)
      .int(typeof metadata.depth === 'number' ? metadata.depth : null)
      .double(typeof metadata.cost_usd === 'number' ? metadata.cost_usd : null)
      .int(typeof metadata.replayed_calls === 'number' ? metadata.replayed_calls : null)
      .text(JSON.stringify(metadata))
      .end();
    for (const [index, turn] of t.conversations.entries()) this.turn(record, t.conversations, turn, index);
    for (const [tool, stat] of Object.entries(t.tool_stats)) {
      if (stat.count === 0 && stat.success === 0 && stat.failure === 0) continue;
      this.toolStats.bigint(record).text(tool).bigint(stat.count).bigint(stat.success).bigint(stat.failure).end();
    }
  }

  private turn(record: number, turns: readonly Turn[], turn: Turn, index: number): void {
    const isGpt = turn.from === 'gpt';
    this.turns
      .bigint(record)
      .int(index)
      .text(turn.from)
      .int(Buffer.byteLength(turn.value))
      .bool(isGpt ? gptTurnHasReasoning(turn.value) : null)
      .end();
    // No <tool_call> text, no call: skips parsing the many answers that call nothing.
    if (isGpt && turn.value.includes(`<${TOOL_CALL_TAG}>`)) this.calls(record, turns, index);
  }

  /** The calls of the gpt turn at `index`, paired by position with the next turn's responses (core's toolStatsFromConversations). */
  private calls(record: number, turns: readonly Turn[], index: number): void {
    const calls = parseGptValue(turns[index]!.value).toolCalls;
    if (calls.length === 0) return;
    const next = turns[index + 1];
    const responses = next?.from === 'tool' ? parseToolValue(next.value) : [];
    calls.forEach((call, k) => {
      const response = responses[k];
      this.toolCalls
        .bigint(record)
        .int(index)
        .int(k)
        .text(call.name)
        .int(call.arguments === null ? null : Buffer.byteLength(JSON.stringify(call.arguments)))
        .text(call.error ?? null)
        .bool(response ? toolCallSucceeded(response.content) : null)
        .int(response ? Buffer.byteLength(response.raw) : null)
        .end();
    });
  }

  public discarded(record: number, t: Tombstone, place: Place, run: string | null): void {
    this.tombstones
      .bigint(record)
      .text(t.id ?? null)
      .text(run)
      .text(place.source)
      .bigint(place.line)
      .bigint(t.prompt_index)
      .text(t.discarded)
      .text(t.prompt)
      .end();
  }

  public run(run: RunDirectory): void {
    this.runs.text(run.run).text(run.name).int(run.files.length).text(run.manifest).text(run.checkpoint).text(run.statistics).end();
  }

  public flush(): void {
    for (const row of this.all()) row.flush();
  }

  public close(): void {
    for (const row of this.all()) row.close();
  }

  private all(): Row[] {
    return [this.trajectories, this.turns, this.toolCalls, this.toolStats, this.tombstones, this.runs];
  }
}

/** Typed, nullable appends, chained in column order. */
class Row {
  public constructor(private readonly appender: DuckDBAppender) {}

  public bigint(value: number | null): this {
    if (value === null) this.appender.appendNull();
    else this.appender.appendBigInt(BigInt(value));
    return this;
  }

  public int(value: number | null): this {
    if (value === null) this.appender.appendNull();
    else this.appender.appendInteger(value);
    return this;
  }

  public double(value: number | null): this {
    if (value === null) this.appender.appendNull();
    else this.appender.appendDouble(value);
    return this;
  }

  public bool(value: boolean | null): this {
    if (value === null) this.appender.appendNull();
    else this.appender.appendBoolean(value);
    return this;
  }

  public text(value: string | null): this {
    if (value === null) this.appender.appendNull();
    else this.appender.appendVarchar(value);
    return this;
  }

  public textList(values: readonly string[]): this {
    this.appender.appendList(values, TEXT_LIST);
    return this;
  }

  public end(): void {
    this.appender.endRow();
  }

  public flush(): void {
    this.appender.flushSync();
  }

  public close(): void {
    this.appender.closeSync();
  }
}
