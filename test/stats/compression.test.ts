// hermes-stats report's compression figures are hermes-compress's own: a skipped or unchanged record
// carries token counts (tokens_after = tokens_before) without having been compressed, and a record too
// small to be counted carries none. The HTML report must say what the stream stage's summary line and
// its --metrics-file say, on records hermes-compress really wrote.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spec as compressSpec } from '@hermes-datagen/compress';
import { spec as statsSpec } from '@hermes-datagen/stats';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { trajectory } from '../util/trajectories.js';
import { syntheticRecords } from './analysisFixtures.js';

interface Metrics {
  summary: { trajectories_compressed: number; trajectories_failed: number };
  tokens: { total_before: number; total_after: number; records_not_tokenised: number };
  by_status: Record<string, number>;
}

function extras(html: string): { compression: Record<string, unknown> | null } {
  const json = /<script type="application\/json" id="hermes-stats-extras">(.*?)<\/script>/s.exec(html)?.[1];
  if (json === undefined) throw new Error('the report has no hermes-stats-extras');
  return JSON.parse(json) as { compression: Record<string, unknown> | null };
}

describe('hermes-stats report: compression as hermes-compress counted it', () => {
  it('counts only compressed records as compressed, and totals tokens over the records hermes-compress counted', async () => {
    const dir = tempDir();
    const short = Array.from({ length: 3 }, (_, i) => trajectory({ id: `short-${i}`, prompt_index: 100 + i }));
    writeFiles(dir, { 'run.jsonl': jsonl([...syntheticRecords(60), ...short]) });
    const compress = await runInProcess(
      compressSpec,
      ['--ratio', '0.3', '--min-tokens-after', '600', '--metrics-file', 'metrics.json', 'run.jsonl', '-o', 'compressed.jsonl'],
      { cwd: dir },
    );
    expect(compress.code, compress.stderr).toBe(0);
    const metrics = JSON.parse(readFileSync(join(dir, 'metrics.json'), 'utf8')) as Metrics;
    const compressed = metrics.summary.trajectories_compressed;
    const trajectories = Object.values(metrics.by_status).reduce((a, b) => a + b, 0);
    // Mixed enough to tell the rules apart: compressed, skipped with counts, skipped without, unchanged.
    expect(compressed).toBeGreaterThan(0);
    expect(metrics.by_status['skipped']).toBeGreaterThan(compressed);
    expect(metrics.by_status['unchanged']).toBeGreaterThan(0);
    expect(metrics.tokens.records_not_tokenised).toBeGreaterThan(0);
    const records = parseJsonl(readFileSync(join(dir, 'compressed.jsonl'), 'utf8')) as { metadata?: { compression?: { tokens_before: number | null } } }[];
    const counted = records.filter((r) => typeof r.metadata?.compression?.tokens_before === 'number').length;
    expect(counted).toBeGreaterThan(compressed);

    const report = await runInProcess(statsSpec, ['report', '--html', 'report.html', 'compressed.jsonl'], { cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(extras(html).compression).toEqual({
      trajectories,
      compressed,
      statuses: metrics.by_status,
      counted: counted - metrics.summary.trajectories_failed,
      tokens_before: metrics.tokens.total_before,
      tokens_after: metrics.tokens.total_after,
    });
    expect(html).toContain(`${compressed} of ${trajectories} trajectories compressed (`);
    // The same numbers as the stage's summary line.
    expect(compress.stderr).toContain(`compressed ${compressed}, skipped ${metrics.by_status['skipped']}`);
    expect(compress.stderr).toContain(`tokens ${metrics.tokens.total_before} -> ${metrics.tokens.total_after}`);

    // The column the report counts by, for SQL.
    const sql = await runInProcess(
      statsSpec,
      ['sql', '--format', 'jsonl', 'SELECT compression_status AS status, count(*) AS n FROM trajectories GROUP BY 1 ORDER BY 1', 'compressed.jsonl'],
      { cwd: dir },
    );
    expect(sql.code, sql.stderr).toBe(0);
    expect(Object.fromEntries((parseJsonl(sql.stdout) as { status: string; n: number }[]).map((r) => [r.status, r.n]))).toEqual(metrics.by_status);
  });
});
