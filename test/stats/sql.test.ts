// hermes-stats sql: what the tables hold for each kind of record, run directories, output formats,
// --db files, and errors.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/stats';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { trajectory } from '../util/trajectories.js';
import { edgeRecords, toolsRecord, tombstones } from './analysisFixtures.js';

type Row = Record<string, unknown>;

async function query(sql: string, args: readonly string[], options: { cwd?: string; input?: string } = {}): Promise<Row[]> {
  const res = await runInProcess(spec, ['sql', sql, ...args], options);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return parseJsonl(res.stdout) as Row[];
}

function edgeDir(): string {
  const dir = tempDir();
  writeFiles(dir, { 'edge.jsonl': jsonl(edgeRecords) });
  return dir;
}

describe('hermes-stats sql: the tables', () => {
  it('trajectories: one row per record with typed columns and the whole metadata', async () => {
    const rows = await query('SELECT * EXCLUDE (metadata), metadata FROM trajectories ORDER BY record', ['edge.jsonl'], { cwd: edgeDir() });
    expect(rows.map((r) => r['id'])).toEqual(['edge-tools', 'edge-bare', 'edge-claimed', 'edge-silent']);
    expect(rows[0]).toEqual({
      record: 0,
      id: 'edge-tools',
      run: null,
      source: 'edge.jsonl',
      line: 1,
      prompt_index: 10,
      model: 'edge/model-a',
      batch_num: 1,
      timestamp: '2026-02-01T10:00:00',
      completed: true,
      partial: false,
      api_calls: 3,
      turns: 7,
      toolsets_used: ['terminal', 'file', 'terminal'],
      prompt_tokens: 100,
      completion_tokens: 40,
      total_tokens: 140,
      tokens_before: 900,
      tokens_after: 300,
      compression_status: null,
      wall_time_s: 2.5,
      endpoint_host: '127.0.0.1:8080',
      run_name: null,
      trace_id: null,
      parent_id: null,
      depth: null,
      cost_usd: null,
      replayed_calls: null,
      metadata: toolsRecord.metadata,
    });
    expect(rows[1]).toMatchObject({ id: 'edge-bare', completed: false, partial: true, prompt_tokens: null, tokens_before: null, wall_time_s: null });
  });

  it('turns: role, size and reasoning of every turn', async () => {
    const rows = await query('SELECT turn, role, value_bytes, has_reasoning FROM turns WHERE record = 0 ORDER BY turn', ['edge.jsonl'], { cwd: edgeDir() });
    expect(rows.map((r) => [r['role'], r['has_reasoning']])).toEqual([
      ['system', null],
      ['human', null],
      ['gpt', true],
      ['tool', null],
      ['gpt', false], // only the inserted empty <think>
      ['tool', null],
      ['gpt', true], // a scratchpad
    ]);
    expect(rows.map((r) => r['value_bytes'])).toEqual(toolsRecord.conversations.map((t) => Buffer.byteLength(t.value)));
  });

  it('tool_calls: each block paired by position with its response; malformed and unanswered calls kept', async () => {
    const rows = await query(
      'SELECT record, turn, call, name, error IS NOT NULL AS malformed, success, response_bytes IS NOT NULL AS answered FROM tool_calls ORDER BY record, turn, call',
      ['edge.jsonl'],
      {
        cwd: edgeDir(),
      },
    );
    expect(rows).toEqual([
      { record: 0, turn: 2, call: 0, name: 'terminal', malformed: false, success: true, answered: true }, // exit_code 1 is not a failure
      { record: 0, turn: 4, call: 0, name: 'read_file', malformed: false, success: false, answered: true }, // {"error": ...}
      { record: 0, turn: 4, call: 1, name: 'read_file', malformed: false, success: null, answered: false },
      { record: 1, turn: 2, call: 0, name: null, malformed: true, success: true, answered: true },
      { record: 1, turn: 2, call: 1, name: 'web_search', malformed: false, success: false, answered: true }, // "Error: ..."
    ]);
    const [sizes] = await query("SELECT arguments_bytes FROM tool_calls WHERE name = 'terminal'", ['edge.jsonl'], { cwd: edgeDir() });
    expect(sizes).toEqual({ arguments_bytes: Buffer.byteLength(JSON.stringify({ command: 'ls' })) });
  });

  it("tool_stats: the record's own counts, recomputed from the conversation only when it has none", async () => {
    const rows = await query('SELECT record, tool, count, success, failure FROM tool_stats ORDER BY record, tool', ['edge.jsonl'], { cwd: edgeDir() });
    expect(rows).toEqual([
      { record: 0, tool: 'read_file', count: 2, success: 0, failure: 1 },
      { record: 0, tool: 'terminal', count: 1, success: 1, failure: 0 },
      { record: 1, tool: 'web_search', count: 1, success: 0, failure: 1 },
      { record: 2, tool: 'terminal', count: 5, success: 3, failure: 1 },
      { record: 2, tool: 'web_search_v2', count: 1, success: 1, failure: 0 },
    ]);
  });

  it('discarded: one row per tombstone, numbered among the records', async () => {
    const rows = await query('SELECT record, id, line, prompt_index, reason, prompt FROM discarded ORDER BY record', ['edge.jsonl'], { cwd: edgeDir() });
    expect(rows).toEqual(
      tombstones.map((t, i) => ({ record: 4 + i, id: t.id ?? null, line: 5 + i, prompt_index: t.prompt_index, reason: t.discarded, prompt: t.prompt })),
    );
  });

  it('runs: a run directory gives its JSONL files in natural order (merged trajectories.jsonl skipped) and its JSON files', async () => {
    const dir = tempDir();
    const record = (id: string): string => jsonl([trajectory({ id })]);
    writeFiles(dir, {
      'data/run1/batch_0.jsonl': record('b0'),
      'data/run1/batch_2.jsonl': record('b2'),
      'data/run1/batch_10.jsonl': record('b10'),
      'data/run1/trajectories.jsonl': record('b0') + record('b2') + record('b10'),
      'data/run1/run.json': JSON.stringify({ run_name: 'run1', model: 'm' }),
      'data/run1/statistics.json': JSON.stringify({ tool_statistics: {}, reasoning_statistics: {} }),
      'data/run1/notes.txt': 'not read',
      'extra.jsonl': record('x'),
    });
    const trajectories = await query('SELECT id, run, source FROM trajectories ORDER BY record', ['data/run1', 'extra.jsonl'], { cwd: dir });
    expect(trajectories).toEqual([
      { id: 'b0', run: 'data/run1', source: 'data/run1/batch_0.jsonl' },
      { id: 'b2', run: 'data/run1', source: 'data/run1/batch_2.jsonl' },
      { id: 'b10', run: 'data/run1', source: 'data/run1/batch_10.jsonl' },
      { id: 'x', run: null, source: 'extra.jsonl' },
    ]);
    const runs = await query('SELECT * FROM runs', ['data/run1', 'extra.jsonl'], { cwd: dir });
    expect(runs).toEqual([
      {
        run: 'data/run1',
        name: 'run1',
        files: 3,
        manifest: { run_name: 'run1', model: 'm' },
        checkpoint: null,
        statistics: { tool_statistics: {}, reasoning_statistics: {} },
      },
    ]);
  });

  it("loads each record once from a run's files named one by one (run/*.jsonl): the merged trajectories.jsonl is skipped, with a warning", async () => {
    const dir = tempDir();
    const record = (id: string): string => jsonl([trajectory({ id })]);
    writeFiles(dir, {
      'run/batch_0.jsonl': record('a'),
      'run/batch_1.jsonl': record('b'),
      'run/trajectories.jsonl': record('a') + record('b'),
      'other/trajectories.jsonl': record('c'),
    });
    const res = await runInProcess(
      spec,
      [
        'sql',
        'SELECT id, source FROM trajectories ORDER BY record',
        'run/batch_0.jsonl',
        'run/batch_1.jsonl',
        'run/trajectories.jsonl',
        'other/trajectories.jsonl',
      ],
      {
        cwd: dir,
      },
    );
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual([
      { id: 'a', source: 'run/batch_0.jsonl' },
      { id: 'b', source: 'run/batch_1.jsonl' },
      { id: 'c', source: 'other/trajectories.jsonl' },
    ]);
    expect(res.stderr).toBe(
      'hermes-stats: warning: run/trajectories.jsonl is not loaded: it is the merge of the batch files named beside it, which are (each record is loaded once)\n',
    );
    // Named alone, the merged file is read.
    expect(await query('SELECT count(*) AS n FROM trajectories', ['run/trajectories.jsonl'], { cwd: dir })).toEqual([{ n: 2 }]);
  });

  it('reads the merged file of a run directory when it has no batch files, and nothing (not stdin) from an empty one', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'merged/trajectories.jsonl': jsonl([trajectory({ id: 'm' })]) });
    mkdirSync(join(dir, 'empty'));
    expect(await query('SELECT id FROM trajectories', ['merged'], { cwd: dir })).toEqual([{ id: 'm' }]);
    expect(await query('SELECT count(*) AS n FROM trajectories', ['empty'], { cwd: dir, input: jsonl([trajectory()]) })).toEqual([{ n: 0 }]);
  });

  it('reads stdin when no input is named', async () => {
    expect(await query('SELECT count(*) AS n FROM trajectories', [], { input: jsonl(edgeRecords) })).toEqual([{ n: 4 }]);
  });
});

describe('hermes-stats sql: output', () => {
  const sql = "SELECT 1 AS n, 'a, \"b\"' AS text, NULL AS nothing, [1, 2] AS list UNION ALL SELECT 22, 'line\nbreak', NULL, [] ORDER BY n";

  it('jsonl off a terminal: one object per row, integers as numbers', async () => {
    expect(await query(sql, ['edge.jsonl'], { cwd: edgeDir() })).toEqual([
      { n: 1, text: 'a, "b"', nothing: null, list: [1, 2] },
      { n: 22, text: 'line\nbreak', nothing: null, list: [] },
    ]);
  });

  it('csv: quoted where needed, NULL as an empty field, lists as JSON', async () => {
    const res = await runInProcess(spec, ['sql', '--format', 'csv', sql, 'edge.jsonl'], { cwd: edgeDir() });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('n,text,nothing,list\n1,"a, ""b""",,"[1,2]"\n22,"line\nbreak",,[]\n');
  });

  it('table: aligned columns, numbers to the right, a row count', async () => {
    const res = await runInProcess(spec, ['sql', '--format', 'table', sql, 'edge.jsonl'], { cwd: edgeDir() });
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')).toEqual([
      ' n │ text       │ nothing │ list',
      '───┼────────────┼─────────┼──────',
      ' 1 │ a, "b"     │ NULL    │ [1,2]',
      '22 │ line⏎break │ NULL    │ []',
      '(2 rows)',
      '',
    ]);
  });

  it('runs every statement and prints the last one', async () => {
    const rows = await query('CREATE TEMP TABLE t AS SELECT 41 AS x; SELECT x + 1 AS answer FROM t', ['edge.jsonl'], { cwd: edgeDir() });
    expect(rows).toEqual([{ answer: 42 }]);
  });

  it("a SQL error is a usage error with DuckDB's message and the table names", async () => {
    const res = await runInProcess(spec, ['sql', 'SELECT nope FROM trajectories', 'edge.jsonl'], { cwd: edgeDir() });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('"nope" not found');
    expect(res.stderr).toContain('the tables: trajectories, turns, tool_calls, tool_stats, discarded, runs');
  });
});

describe('hermes-stats sql --db', () => {
  it('keeps the tables for queries without inputs, rebuilds them from new inputs, and keeps them when a load fails', async () => {
    const dir = edgeDir();
    writeFiles(dir, { 'one.jsonl': jsonl([trajectory({ id: 'only' })]), 'bad.jsonl': `${jsonl([trajectory()])}not json\n` });
    expect(await query('SELECT count(*) AS n FROM trajectories', ['--db', 'runs.duckdb', 'edge.jsonl'], { cwd: dir })).toEqual([{ n: 4 }]);
    expect(await query('SELECT count(*) AS n FROM discarded', ['--db', 'runs.duckdb'], { cwd: dir })).toEqual([{ n: 3 }]);

    const failed = await runInProcess(spec, ['sql', '--db', 'runs.duckdb', 'SELECT 1', 'bad.jsonl'], { cwd: dir });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('bad.jsonl:2');
    expect(await query('SELECT count(*) AS n FROM trajectories', ['--db', 'runs.duckdb'], { cwd: dir })).toEqual([{ n: 4 }]);

    expect(await query('SELECT id FROM trajectories', ['--db', 'runs.duckdb', 'one.jsonl'], { cwd: dir })).toEqual([{ id: 'only' }]);
    expect(await query('SELECT id FROM trajectories', ['--db', 'runs.duckdb'], { cwd: dir })).toEqual([{ id: 'only' }]);
    expect(existsSync(join(dir, 'runs.duckdb.wal'))).toBe(false);
  });

  it('refuses to replace a file that is not a DuckDB database, and bad settings', async () => {
    const dir = edgeDir();
    writeFiles(dir, { 'report.html': '<html></html>' });
    const replaced = await runInProcess(spec, ['sql', '--db', 'report.html', 'SELECT 1', 'edge.jsonl'], { cwd: dir });
    expect(replaced.code).toBe(2);
    expect(replaced.stderr).toContain('report.html exists and is not a DuckDB database');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toBe('<html></html>');
    const queried = await runInProcess(spec, ['sql', '--db', 'report.html', 'SELECT 1'], { cwd: dir });
    expect(queried.code).toBe(2);
    expect(queried.stderr).toContain('report.html is not a DuckDB database');

    const limit = await runInProcess(spec, ['sql', '--memory-limit', 'lots', 'SELECT 1', 'edge.jsonl'], { cwd: dir });
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--memory-limit takes a size such as 256MB or 2GB (got lots)');
    expect(await query('SELECT 1 AS ok', ['--memory-limit', '1.5GB', '--threads', '1', 'edge.jsonl'], { cwd: dir })).toEqual([{ ok: 1 }]);
  });

  it('says how to build a database file that does not exist', async () => {
    const dir = tempDir();
    const res = await runInProcess(spec, ['sql', '--db', 'missing.duckdb', 'SELECT 1'], { cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('missing.duckdb does not exist: build it first by giving inputs with --db');
    expect(existsSync(join(dir, 'missing.duckdb'))).toBe(false);
  });
});
