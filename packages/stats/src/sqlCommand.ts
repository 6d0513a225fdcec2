// `hermes-stats sql`: a query over the analysis tables, printed as an aligned table (for a person at a
// terminal), JSONL (one object per row, for pipes: the default off a terminal) or CSV.
import type { DuckDBConnection, Json } from '@duckdb/node-api';
import type { JsonlWriter } from '@hermes-datagen/core';
import { resultRows, rowObject, runStatements, sqlError } from './duckdb/query.js';

export const SQL_FORMATS = ['table', 'jsonl', 'csv'] as const;
export type SqlFormat = (typeof SQL_FORMATS)[number];

/** A table cell longer than this is cut (the full value is in --format jsonl or csv). */
const MAX_CELL = 60;

export async function printQuery(connection: DuckDBConnection, sql: string, format: SqlFormat, out: JsonlWriter): Promise<void> {
  const result = await runStatements(connection, sql);
  const columns = result.deduplicatedColumnNames();
  try {
    if (format === 'jsonl') {
      for await (const rows of resultRows(result)) for (const row of rows) await out.write(rowObject(columns, row));
    } else if (format === 'csv') {
      await out.writeLine(columns.map(csvField).join(','));
      for await (const rows of resultRows(result)) for (const row of rows) await out.writeLine(row.map(csvField).join(','));
    } else {
      const rows: Json[][] = [];
      for await (const chunk of resultRows(result)) rows.push(...chunk);
      for (const line of tableLines(columns, rows)) await out.writeLine(line);
    }
  } catch (error) {
    throw sqlError(error);
  }
}

/** RFC 4180: quoted when it holds a comma, quote or line break; NULL is an empty field; nested values as JSON. */
function csvField(value: Json): string {
  if (value === null) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function tableLines(columns: readonly string[], rows: readonly (readonly Json[])[]): string[] {
  const cells = rows.map((row) => row.map(tableCell));
  const numeric = columns.map((_, i) => rows.some((row) => typeof row[i] === 'number') && rows.every((row) => row[i] === null || typeof row[i] === 'number'));
  const widths = columns.map((name, i) => Math.max(name.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join(' │ ')
      .trimEnd();
  return [line(columns), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...cells.map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`];
}

function tableCell(value: Json): string {
  const text = value === null ? 'NULL' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const oneLine = text.replace(/\r?\n/g, '⏎');
  return oneLine.length > MAX_CELL ? `${oneLine.slice(0, MAX_CELL - 1)}…` : oneLine;
}
