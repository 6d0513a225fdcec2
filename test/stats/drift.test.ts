// JSON type drift past DuckDB's 20,480-row inference sample: a metadata field that is a number in the
// early rows and a string later, and a tool_stats key that first appears late. DuckDB's own reader
// over the file fails on both (shown first, so the file really drifts); the tables, whose columns are
// declared rather than inferred, load it whole and keep every value.
import { describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/stats';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, trajectory } from '../util/trajectories.js';

const SAMPLE_ROWS = 20_480;
const ROWS = 25_000;
const DRIFT_FROM = 22_000;

function driftingRecords(): unknown[] {
  const conversations = [{ from: 'system' as const, value: 'sys' }, human('Go.'), gpt({ think: 'Fine.', text: 'Done.' })];
  return Array.from({ length: ROWS }, (_, i) => {
    const late = i >= DRIFT_FROM;
    return trajectory({
      prompt_index: i,
      conversations,
      metadata: { batch_num: 0, timestamp: '2026-01-01T00:00:00', model: 'm', attempt: late ? `retry-${i}` : i },
      tool_stats: late
        ? { terminal: { count: 1, success: 1, failure: 0 }, late_tool: { count: 2, success: 1, failure: 1 } }
        : { terminal: { count: 1, success: 1, failure: 0 } },
      tool_error_counts: late ? { terminal: 0, late_tool: 1 } : { terminal: 0 },
    });
  });
}

describe('type drift after the inference sample', () => {
  // Three DuckDB loads of 25,000 records: about 20 s on a busy 2-core machine, so the default 30 s bound is too tight.
  it('breaks DuckDB reading the JSON itself, not the tables', async () => {
    expect(DRIFT_FROM).toBeGreaterThan(SAMPLE_ROWS);
    const dir = tempDir();
    writeFiles(dir, { 'drift.jsonl': jsonl(driftingRecords()), 'none.jsonl': '' });

    const inferred = await runInProcess(spec, ['sql', "SELECT count(metadata.attempt) FROM read_ndjson('drift.jsonl')", 'none.jsonl'], { cwd: dir });
    expect(inferred.code).toBe(2);
    expect(inferred.stderr).toContain(`line ${DRIFT_FROM + 1}`);
    const lateKey = await runInProcess(spec, ['sql', "SELECT sum(tool_stats.late_tool.count) FROM read_ndjson('drift.jsonl')", 'none.jsonl'], { cwd: dir });
    expect(lateKey.code).toBe(2);
    expect(lateKey.stderr).toContain('late_tool');

    const res = await runInProcess(
      spec,
      [
        'sql',
        `SELECT count(*) AS trajectories,
                count(*) FILTER (WHERE json_type(metadata->'$.attempt') = 'UBIGINT') AS numbers,
                count(*) FILTER (WHERE json_type(metadata->'$.attempt') = 'VARCHAR') AS strings,
                max(metadata->>'$.attempt') FILTER (WHERE record = ${ROWS - 1}) AS last_attempt,
                (SELECT sum(count) FROM tool_stats WHERE tool = 'late_tool') AS late_calls,
                (SELECT sum(failure) FROM tool_stats WHERE tool = 'late_tool') AS late_failures
         FROM trajectories`,
        'drift.jsonl',
      ],
      { cwd: dir },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual([
      {
        trajectories: ROWS,
        numbers: DRIFT_FROM,
        strings: ROWS - DRIFT_FROM,
        last_attempt: `retry-${ROWS - 1}`,
        late_calls: 2 * (ROWS - DRIFT_FROM),
        late_failures: ROWS - DRIFT_FROM,
      },
    ]);

    const report = await runInProcess(spec, ['report', '--json', 'drift.jsonl'], { cwd: dir });
    expect(report.code).toBe(0);
    expect((JSON.parse(report.stdout) as { tool_statistics: Record<string, unknown> }).tool_statistics['late_tool']).toEqual({
      count: 2 * (ROWS - DRIFT_FROM),
      success: ROWS - DRIFT_FROM,
      failure: ROWS - DRIFT_FROM,
      success_rate: 50,
      failure_rate: 50,
    });
  }, 180_000);
});
