// hermes-stats export --parquet: one Parquet file per table, with exactly the declared schema, read back
// by DuckDB's own Parquet reader.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLES } from '@hermes-datagen/stats/internal/duckdb/tables.js';
import { spec } from '@hermes-datagen/stats';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { edgeRecords } from './analysisFixtures.js';

type Row = Record<string, unknown>;

async function sql(dir: string, query: string): Promise<Row[]> {
  const res = await runInProcess(spec, ['sql', '--db', 'runs.duckdb', query], { cwd: dir });
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return parseJsonl(res.stdout) as Row[];
}

describe('hermes-stats export --parquet', () => {
  it('writes every table with the fixed schema and all its rows', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'data/run1/batch_0.jsonl': jsonl(edgeRecords), 'data/run1/run.json': '{"run_name": "run1"}' });
    const res = await runInProcess(spec, ['export', '--parquet', 'out', '--db', 'runs.duckdb', 'data/run1'], { cwd: dir });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(TABLES.map((t) => `${t.name}.parquet`).sort());

    for (const table of TABLES) {
      const file = join(dir, 'out', `${table.name}.parquet`);
      const schema = await sql(dir, `DESCRIBE SELECT * FROM read_parquet('${file}')`);
      // Parquet's JSON logical type keeps even the JSON columns' type.
      expect(schema.map((c) => [c['column_name'], c['column_type']])).toEqual(table.columns.map((c) => [c.name, c.type]));
      const [counts] = await sql(dir, `SELECT (SELECT count(*) FROM read_parquet('${file}')) AS exported, (SELECT count(*) FROM ${table.name}) AS loaded`);
      expect(counts!['exported']).toBe(counts!['loaded']);
    }
    const [runs] = await sql(dir, `SELECT count(*) AS n FROM read_parquet('${join(dir, 'out', 'runs.parquet')}')`);
    expect(runs).toEqual({ n: 1 });
    const [sums] = await sql(dir, `SELECT sum(count) AS calls FROM read_parquet('${join(dir, 'out', 'tool_stats.parquet')}')`);
    expect(sums).toEqual({ calls: 10 });
  });

  it('exports from stdin into a new directory without a --db file', async () => {
    const dir = tempDir();
    const res = await runInProcess(spec, ['export', '--parquet', 'deep/out'], { cwd: dir, input: jsonl(edgeRecords) });
    expect(res.code).toBe(0);
    expect(readdirSync(join(dir, 'deep', 'out'))).toContain('trajectories.parquet');
    expect(readdirSync(join(dir, 'deep', 'out')).some((name) => name.includes('.tmp-'))).toBe(false);
  });

  it('needs --parquet', async () => {
    const res = await runInProcess(spec, ['export'], { input: jsonl(edgeRecords) });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('parquet');
  });
});
