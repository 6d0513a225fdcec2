// Running SQL and reading results as plain JSON values. DuckDB's own JSON form writes every 64-bit
// integer as a string (sum() and count() give HUGEINT/BIGINT), which would make each count in a report
// or a JSONL row a string; here integers become numbers whenever that is exact, and JSON columns
// (metadata, manifests) become the JSON they hold rather than a string of it.
import {
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBConnection,
  type DuckDBMaterializedResult,
  type DuckDBResult,
  type DuckDBValueConverter,
  type Json,
} from '@duckdb/node-api';
import { UsageError } from '@hermes-datagen/core';

const WIDE_INTEGERS: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT]);
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

const plainJsonConverter: DuckDBValueConverter<Json> = (value, type, converter) => {
  if (value === null) return null;
  if (WIDE_INTEGERS.has(type.typeId) && typeof value === 'bigint') {
    return value >= -MAX_EXACT && value <= MAX_EXACT ? Number(value) : value.toString();
  }
  return JsonDuckDBValueConverter(value, type, converter);
};

export type Row = Record<string, Json>;

/**
 * A result's rows in chunks, as plain JSON values. A JSON column is known by its type alias, which
 * only the result's column types carry (not the types a value converter sees), so it is parsed here.
 */
export async function* resultRows(result: DuckDBResult): AsyncGenerator<Json[][]> {
  const isJson = result.columnTypes().map((type) => type.alias === 'JSON');
  for await (const rows of result.yieldConvertedRows(plainJsonConverter)) {
    yield rows.map((row) => row.map((value, i) => (isJson[i] && typeof value === 'string' ? (JSON.parse(value) as Json) : value)));
  }
}

/** All rows of one statement as objects (for the small aggregate results of the report). */
export async function queryRows(connection: DuckDBConnection, sql: string): Promise<Row[]> {
  const result: DuckDBMaterializedResult = await connection.run(sql);
  const columns = result.deduplicatedColumnNames();
  const rows: Row[] = [];
  for await (const chunk of resultRows(result)) for (const row of chunk) rows.push(rowObject(columns, row));
  return rows;
}

export function rowObject(columns: readonly string[], row: readonly Json[]): Row {
  return Object.fromEntries(columns.map((name, i) => [name, row[i] ?? null]));
}

/** The one row of an aggregate query. */
export async function queryRow(connection: DuckDBConnection, sql: string): Promise<Row> {
  const [row] = await queryRows(connection, sql);
  if (!row) throw new Error(`expected one row from: ${sql}`);
  return row;
}

/**
 * Runs every statement of a user's SQL text in order and returns the last one's result as a stream
 * (rows are read as they are printed, so a large result is never held whole). SQL errors are the
 * user's to fix: they come back as usage errors carrying DuckDB's message.
 */
export async function runStatements(connection: DuckDBConnection, sql: string): Promise<DuckDBResult> {
  try {
    const statements = await connection.extractStatements(sql);
    if (statements.count === 0) throw new UsageError('the SQL text holds no statement; give a query such as "SELECT count(*) FROM trajectories"');
    for (let i = 0; i < statements.count - 1; i += 1) await (await statements.prepare(i)).run();
    return await (await statements.prepare(statements.count - 1)).stream();
  } catch (error) {
    throw sqlError(error);
  }
}

export function sqlError(error: unknown): Error {
  if (error instanceof UsageError || !(error instanceof Error)) return error instanceof Error ? error : new Error(String(error));
  return new UsageError(
    `${error.message}\n(the tables: trajectories, turns, tool_calls, tool_stats, discarded, runs; DESCRIBE trajectories lists the columns)`,
  );
}
