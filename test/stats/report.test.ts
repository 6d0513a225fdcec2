// hermes-stats report: the acceptance check that one file gives the same numbers from the stream
// summary (hermes-stats --summary), from `report --json`, and from hand-written SQL over the tables;
// then the console report and the input conventions.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/stats';
import type { StatisticsSummary } from '@hermes-datagen/core/internal/statistics/summary.js';
import { binPath, jsonl, parseJsonl, runInProcess, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { trajectory } from '../util/trajectories.js';
import { edgeRecords, syntheticRecords } from './analysisFixtures.js';

type Row = Record<string, unknown>;

const records = [...syntheticRecords(300), ...edgeRecords];

async function streamSummary(dir: string, file: string, ...flags: string[]): Promise<StatisticsSummary> {
  const res = await runInProcess(spec, ['--summary', 'summary.json', ...flags, file, '-o', 'normalised.jsonl'], { cwd: dir });
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as StatisticsSummary;
}

async function reportJson(dir: string, ...args: string[]): Promise<StatisticsSummary> {
  const res = await runInProcess(spec, ['report', '--json', ...args], { cwd: dir });
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout) as StatisticsSummary;
}

async function sql(dir: string, query: string): Promise<Row[]> {
  const res = await runInProcess(spec, ['sql', '--db', 'runs.duckdb', '--format', 'jsonl', query], { cwd: dir });
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return parseJsonl(res.stdout) as Row[];
}

describe('hermes-stats report: one file, three ways, the same numbers', () => {
  it('stream summary = report --json = hand-written SQL over the tables', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'run.jsonl': jsonl(records) });
    const summary = await streamSummary(dir, 'run.jsonl');
    const report = await reportJson(dir, '--db', 'runs.duckdb', 'run.jsonl');
    expect(report).toEqual(summary);
    // The file is rich enough for the comparison to mean something.
    expect(summary.trajectories).toBe(304);
    expect(Object.keys(summary.tool_statistics).length).toBeGreaterThan(15);
    expect(summary.tool_failures).toBeGreaterThan(0);
    expect(Object.keys(summary.by_model).length).toBeGreaterThan(5);

    // Written as a person would ask, not as report.ts asks.
    const [totals] = await sql(
      dir,
      `SELECT (SELECT count(*) FROM trajectories) AS trajectories,
              (SELECT count(*) FROM trajectories WHERE completed) AS completed,
              (SELECT count(*) FROM trajectories WHERE partial) AS partial,
              (SELECT count(*) FROM turns WHERE role = 'gpt') AS assistant_turns,
              (SELECT count(*) FROM turns WHERE role = 'gpt' AND has_reasoning) AS reasoning_turns,
              (SELECT sum(count) FROM tool_stats) AS tool_calls,
              (SELECT sum(failure) FROM tool_stats) AS tool_failures,
              (SELECT count(*) FROM discarded WHERE reason = 'no_reasoning') AS no_reasoning,
              (SELECT min(turns) FROM trajectories) AS turns_min,
              (SELECT median(turns) FROM trajectories) AS turns_median,
              (SELECT quantile_cont(turns, 0.9) FROM trajectories) AS turns_p90,
              (SELECT max(turns) FROM trajectories) AS turns_max,
              (SELECT median(api_calls) FROM trajectories) AS api_calls_median,
              (SELECT quantile_cont(api_calls, 0.9) FROM trajectories) AS api_calls_p90,
              (SELECT sum(api_calls) FROM trajectories) AS api_calls_total,
              (SELECT count(*) FROM trajectories WHERE total_tokens IS NOT NULL) AS usage_trajectories,
              (SELECT sum(prompt_tokens) FROM trajectories) AS prompt_tokens,
              (SELECT sum(total_tokens) FROM trajectories) AS total_tokens`,
    );
    expect(totals).toEqual({
      trajectories: summary.trajectories,
      completed: summary.completed,
      partial: summary.partial,
      assistant_turns: summary.reasoning_statistics.total_assistant_turns,
      reasoning_turns: summary.reasoning_statistics.turns_with_reasoning,
      tool_calls: summary.tool_calls,
      tool_failures: summary.tool_failures,
      no_reasoning: summary.discarded_no_reasoning,
      turns_min: summary.turns.min,
      turns_median: summary.turns.median,
      turns_p90: summary.turns.p90,
      turns_max: summary.turns.max,
      api_calls_median: summary.api_calls.median,
      api_calls_p90: summary.api_calls.p90,
      api_calls_total: summary.api_calls.total,
      usage_trajectories: summary.usage.trajectories,
      prompt_tokens: summary.usage.prompt_tokens,
      total_tokens: summary.usage.total_tokens,
    });

    const tools = await sql(
      dir,
      'SELECT tool, sum(count) AS count, sum(success) AS success, sum(failure) AS failure FROM tool_stats GROUP BY tool ORDER BY tool',
    );
    expect(Object.fromEntries(tools.map(({ tool, ...counts }) => [tool, counts]))).toEqual(
      Object.fromEntries(Object.entries(summary.tool_statistics).map(([name, { count, success, failure }]) => [name, { count, success, failure }])),
    );

    const models = await sql(
      dir,
      'SELECT model, count(*) AS trajectories, count(*) FILTER (WHERE completed) AS completed, sum(api_calls) AS api_calls FROM trajectories GROUP BY model',
    );
    expect(Object.fromEntries(models.map(({ model, ...counts }) => [model, counts]))).toEqual(
      Object.fromEntries(
        Object.entries(summary.by_model).map(([model, g]) => [model, { trajectories: g.trajectories, completed: g.completed, api_calls: g.api_calls_total }]),
      ),
    );

    const toolsets = await sql(
      dir,
      'SELECT u.toolset, count(DISTINCT t.record) AS trajectories FROM trajectories t, unnest(t.toolsets_used) AS u(toolset) GROUP BY u.toolset',
    );
    expect(Object.fromEntries(toolsets.map((row) => [row['toolset'], row['trajectories']]))).toEqual(
      Object.fromEntries(Object.entries(summary.by_toolset).map(([toolset, g]) => [toolset, g.trajectories])),
    );

    const turns = await sql(dir, 'SELECT turns, count(*) AS n FROM trajectories GROUP BY turns ORDER BY turns');
    expect(Object.fromEntries(turns.map((row) => [String(row['turns']), row['n']]))).toEqual(summary.turns.histogram);
  });

  it('tool_calls applies core success rule: its counts equal the stream summary recomputed from the conversations', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'run.jsonl': jsonl(records) });
    const recomputed = await streamSummary(dir, 'run.jsonl', '--recompute');
    await reportJson(dir, '--db', 'runs.duckdb', 'run.jsonl');
    const calls = await sql(
      dir,
      `SELECT name, count(*) AS count, count(*) FILTER (WHERE success) AS success, count(*) FILTER (WHERE NOT success) AS failure
       FROM tool_calls WHERE name IS NOT NULL GROUP BY name`,
    );
    expect(Object.fromEntries(calls.map(({ name, ...counts }) => [name, counts]))).toEqual(
      Object.fromEntries(Object.entries(recomputed.tool_statistics).map(([name, { count, success, failure }]) => [name, { count, success, failure }])),
    );
  });

  it('agrees with the stream summary on an input with no records', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'empty.jsonl': '' });
    expect(await reportJson(dir, 'empty.jsonl')).toEqual(await streamSummary(dir, 'empty.jsonl'));
  });
});

describe('hermes-stats report: the console summary', () => {
  it("prints upstream's sections with the report's numbers", async () => {
    const dir = tempDir();
    writeFiles(dir, { 'run.jsonl': jsonl(edgeRecords) });
    const res = await runInProcess(spec, ['report', 'run.jsonl'], { cwd: dir });
    expect(res.code).toBe(0);
    const text = res.stdout;
    expect(text).toContain('📊 HERMES-STATS REPORT');
    expect(text).toContain('✅ Trajectories: 4');
    expect(text).toContain('✅ Completed: 2 (50.0%)');
    // Sorted by count: terminal (1 + 5 claimed), read_file 2, then the others.
    const table = text.slice(text.indexOf('📈 Tool Usage Statistics:'), text.indexOf('🧠'));
    expect(table.match(/^(terminal|read_file|web_search_v2|web_search)(?=\s)/gm)).toEqual(['terminal', 'read_file', 'web_search', 'web_search_v2']);
    expect(table).toMatch(/^terminal\s+6\s+4\s+1\s+80\.0%$/m);
    expect(text).toContain('   Total assistant turns: 5');
    expect(text).toContain('   With reasoning: 4 (80.0%)');
    expect(text).toContain('🚫 Samples discarded (zero reasoning): 2');
    expect(text).toContain('🚫 Samples discarded (judge_rejected): 1');
    const failures = text.slice(text.indexOf('❌ Failures by Tool:'), text.indexOf('🤖')).trim().split('\n').slice(2);
    expect(failures.map((line) => line.trim().split(/\s+/))).toEqual([
      ['read_file', '1', '100.0%'],
      ['web_search', '1', '100.0%'],
      ['terminal', '1', '20.0%'],
    ]);
    expect(text).toContain('min 2, median 3.5, p90 6.1, max 7');
  });

  it('says so when no tool was called', async () => {
    const res = await runInProcess(spec, ['report'], { input: jsonl([trajectory()]) });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('No tool calls were made during this run.');
    expect(res.stdout).toContain('No tool call failed.');
  });
});

describe('hermes-stats report: inputs', () => {
  it('runs as a real process from the built bin', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'run.jsonl': jsonl(edgeRecords) });
    const res = await runProcess(binPath('stats', 'hermes-stats'), ['report', '--json', join(dir, 'run.jsonl')]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as StatisticsSummary).trajectories).toBe(4);
  });

  it('reads stdin and gzip alike', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'run.jsonl.gz': gzipSync(jsonl(edgeRecords)) });
    const fromGzip = await reportJson(dir, 'run.jsonl.gz');
    const res = await runInProcess(spec, ['report', '--json'], { input: jsonl(edgeRecords) });
    expect(JSON.parse(res.stdout)).toEqual(fromGzip);
  });

  it('skips a line that is not a trajectory under --on-error skip, and stops on it by default', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'run.jsonl': `${jsonl([trajectory({ id: 'ok' })])}{"prompt_index": 1}\nnot json\n` });
    const skipped = await runInProcess(spec, ['report', '--json', '--on-error', 'skip', '--rejects', 'rejects.jsonl', 'run.jsonl'], { cwd: dir });
    expect(skipped.code).toBe(0);
    expect((JSON.parse(skipped.stdout) as StatisticsSummary).trajectories).toBe(1);
    expect(skipped.stderr).toContain('skipped 2 bad input lines');
    const rejected = parseJsonl(readFileSync(join(dir, 'rejects.jsonl'), 'utf8')).map((r) => (r as { line: number }).line);
    expect(rejected.sort()).toEqual([2, 3]);

    const failed = await runInProcess(spec, ['report', 'run.jsonl'], { cwd: dir });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('run.jsonl:2');
    expect(failed.stdout).toBe('');
  });
});

describe('hermes-stats report: cost', () => {
  const meta = (model: string, extra: Record<string, unknown>): Record<string, unknown> => ({
    batch_num: 0,
    timestamp: '2026-12-01T00:00:00Z',
    model,
    ...extra,
  });
  const priced = [
    trajectory({ id: 'a', metadata: meta('m1', { cost_usd: 0.5, replayed_calls: 2 }) as never }),
    // A sub-agent: its cost is in its parent's (a's) already.
    trajectory({ id: 'a/d0.0', metadata: meta('m1', { cost_usd: 0.1, parent_id: 'a', depth: 1 }) as never }),
    trajectory({ id: 'b', metadata: meta('m2', { cost_usd: 0.25 }) as never }),
    trajectory({ id: 'c', metadata: meta('m2', {}) as never }),
  ];

  it('report --json has the stream summary cost_usd, the text and HTML show it; unpriced input says where prices go', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'priced.jsonl': jsonl(priced), 'plain.jsonl': jsonl([priced[3]]) });
    const summary = await streamSummary(dir, 'priced.jsonl');
    expect(summary.cost_usd).toEqual({
      total: 0.75,
      trajectories: 2,
      per_trajectory: 0.375,
      by_model: { m1: { trajectories: 1, total: 0.5, per_trajectory: 0.5 }, m2: { trajectories: 1, total: 0.25, per_trajectory: 0.25 } },
    });
    expect(summary.replayed_calls).toBe(2);
    expect(await reportJson(dir, 'priced.jsonl')).toEqual(summary);

    const text = await runInProcess(spec, ['report', 'priced.jsonl', '--html', 'report.html'], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('💵 Cost: $0.75 over 2 priced trajectories ($0.375 each');
    expect(text.stdout).toContain('♻️  Replayed calls: 2');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/data-key="cost_usd" data-value="0\.75">.*?\$0\.7500.*?\$0\.3750 per trajectory · 2 priced/);

    const plain = await runInProcess(spec, ['report', 'plain.jsonl', '--html', 'plain.html'], { cwd: dir });
    expect(plain.stdout).toContain('💵 Cost: not priced (hermes-generate --prices FILE');
    expect(readFileSync(join(dir, 'plain.html'), 'utf8')).toMatch(/data-key="cost_usd">.*?not priced/);
  });
});
