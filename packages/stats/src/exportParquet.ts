// `hermes-stats export --parquet OUT`: every analysis table as OUT/<table>.parquet, with the fixed schema
// of duckdb/tables.ts (DuckDB's COPY ... (FORMAT parquet); zstd-compressed). Each file is written under
// a temporary name and renamed into place, so a reader never sees half a file.
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral, TABLES } from './duckdb/tables.js';

/** Writes the tables into the directory `outDir` (created when missing) and returns the files written. */
export async function exportParquet(connection: DuckDBConnection, outDir: string): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const table of TABLES) {
    const file = join(outDir, `${table.name}.parquet`);
    const temp = `${file}.tmp-${process.pid}`;
    try {
      await connection.run(`COPY ${table.name} TO ${quoteLiteral(temp)} (FORMAT parquet, COMPRESSION zstd)`);
      renameSync(temp, file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    written.push(file);
  }
  return written;
}
