// hermes-stats report --html: the page renders in headless Chromium (Debian's chromium package; make setup
// installs it where missing), needs nothing outside itself, and the numbers it shows are the JSON
// summary's: read back from the DOM Chromium rendered, not from the file we wrote.
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/stats';
import type { StatisticsSummary } from '@hermes-datagen/core/internal/statistics/summary.js';
import { CHROMIUM, chromiumCommand } from '../util/browser.js';
import { jsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { edgeRecords, syntheticRecords } from './analysisFixtures.js';

const run = promisify(execFile);

/** Runs headless Chromium on a page (test/util/browser.ts: offline, a fresh profile) in one of its command-line modes. */
async function chromium(page: string, ...mode: string[]): Promise<string> {
  const { stdout } = await run(CHROMIUM, [...chromiumCommand(...mode), pathToFileURL(page).href], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The data-* attributes of each element with this class inside the chart's <svg>, by data-key. */
function chartData(dom: string, chart: string, element: 'bar' | 'column'): Record<string, Record<string, string>> {
  const start = dom.indexOf(`data-chart="${chart}"`);
  expect(start, `chart ${chart} is on the page`).toBeGreaterThan(-1);
  const svg = dom.slice(start, dom.indexOf('</svg>', start));
  const found: Record<string, Record<string, string>> = {};
  for (const [, attributes] of svg.matchAll(new RegExp(`<g class="${element}"([^>]*)>`, 'g'))) {
    const data = Object.fromEntries([...attributes!.matchAll(/data-([a-z-]+)="([^"]*)"/g)].map(([, name, value]) => [name!, unescapeHtml(value!)]));
    found[data['key']!] = data;
  }
  return found;
}

function unescapeHtml(text: string): string {
  return text.replace(/&(lt|gt|quot|#39|amp);/g, (_, entity: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[entity]!);
}

function embedded(dom: string, id: string): unknown {
  const match = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(dom);
  expect(match, `#${id} is on the page`).not.toBeNull();
  return JSON.parse(match![1]!);
}

describe('hermes-stats report --html', () => {
  it('renders in Chromium with the numbers of the JSON summary', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'run.jsonl': jsonl([...syntheticRecords(120), ...edgeRecords]) });
    const res = await runInProcess(spec, ['report', '--html', 'report.html', 'run.jsonl'], { cwd: dir });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('📈 Tool Usage Statistics:');
    const summary = JSON.parse((await runInProcess(spec, ['report', '--json', 'run.jsonl'], { cwd: dir })).stdout) as StatisticsSummary;

    const page = join(dir, 'report.html');
    const html = readFileSync(page, 'utf8');
    // Self-contained: nothing to fetch, no script to run.
    expect(html).not.toMatch(/<link|<img|<iframe|\ssrc=|\shref=|url\(|@import/i);
    expect(html.match(/<script[^>]*>/g)).toEqual([
      '<script type="application/json" id="hermes-stats-summary">',
      '<script type="application/json" id="hermes-stats-extras">',
    ]);

    const dom = await chromium(page, '--dump-dom');
    expect(embedded(dom, 'hermes-stats-summary')).toEqual(summary);

    const tools = chartData(dom, 'tools', 'bar');
    expect(Object.keys(tools).sort()).toEqual(Object.keys(summary.tool_statistics).sort());
    for (const [name, t] of Object.entries(summary.tool_statistics)) {
      expect(tools[name]).toMatchObject({
        count: String(t.count),
        success: String(t.success),
        failure: String(t.failure),
        'failure-rate': String(t.failure_rate),
      });
    }
    const failing = Object.entries(summary.tool_statistics).filter(([, t]) => t.failure > 0);
    expect(Object.keys(chartData(dom, 'failure_rates', 'bar')).sort()).toEqual(failing.map(([name]) => name).sort());

    const models = chartData(dom, 'models', 'bar');
    for (const [model, g] of Object.entries(summary.by_model))
      expect(models[model]).toMatchObject({ trajectories: String(g.trajectories), completed: String(g.completed), partial: String(g.partial) });

    expect(chartData(dom, 'reasoning', 'bar')['assistant_turns']).toMatchObject({
      total: String(summary.reasoning_statistics.total_assistant_turns),
      with: String(summary.reasoning_statistics.turns_with_reasoning),
    });

    // Every trajectory is in exactly one column of each histogram.
    for (const chart of ['turns', 'api_calls']) {
      const columns = Object.values(chartData(dom, chart, 'column'));
      expect(columns.reduce((sum, c) => sum + Number(c['trajectories']), 0)).toBe(summary.trajectories);
    }
    const tokenColumns = Object.values(chartData(dom, 'total_tokens', 'column'));
    expect(tokenColumns.reduce((sum, c) => sum + Number(c['trajectories']), 0)).toBe(summary.usage.trajectories);

    const cards = Object.fromEntries(
      [...dom.matchAll(/<div class="card" data-key="([^"]+)" data-value="([^"]+)"/g)].map(([, key, value]) => [key, Number(value)]),
    );
    expect(cards).toEqual({
      trajectories: summary.trajectories,
      completed: summary.completed,
      partial: summary.partial,
      tool_calls: summary.tool_calls,
      turns_with_reasoning: summary.reasoning_statistics.turns_with_reasoning,
      discarded: 3,
      total_tokens: summary.usage.total_tokens,
    });

    // The edge records carry compression metrics: 900 -> 300 tokens in one trajectory.
    expect(embedded(dom, 'hermes-stats-extras')).toMatchObject({ compression: { trajectories: 1, tokens_before: 900, tokens_after: 300 } });
    expect(chartData(dom, 'compression', 'bar')).toMatchObject({ before: { tokens: '900' }, after: { tokens: '300' } });

    const screenshot = join(dir, 'report.png');
    await chromium(page, `--screenshot=${screenshot}`, '--window-size=1200,2400');
    expect(readFileSync(screenshot).subarray(1, 4).toString()).toBe('PNG');
    expect(statSync(screenshot).size).toBeGreaterThan(20_000);
  });

  it('bins tokens up to the 95th percentile, so one outlier does not put every other trajectory in one bin', async () => {
    const dir = tempDir();
    const tokens = [...Array.from({ length: 31 }, (_, i) => 2000 + i * 50), 34_146];
    const records = tokens.map((total, i) => ({
      ...edgeRecords[0],
      id: `t${i}`,
      metadata: { batch_num: 0, timestamp: 't', model: 'm', usage: { prompt_tokens: total - 10, completion_tokens: 10, total_tokens: total } },
    }));
    writeFiles(dir, { 'run.jsonl': jsonl(records) });
    expect((await runInProcess(spec, ['report', '--html', 'report.html', 'run.jsonl'], { cwd: dir })).code).toBe(0);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    const bins = (embedded(html, 'hermes-stats-extras') as { total_tokens_bins: { from: number; to: number; count: number }[] }).total_tokens_bins;
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(32);
    expect(Math.max(...bins.map((bin) => bin.count))).toBeLessThan(10);
    expect(bins.at(-1)?.to).toBe(34_146);
  });

  it('leaves out what the input does not have and escapes names', async () => {
    const dir = tempDir();
    const odd = { ...edgeRecords[2], id: 'odd', metadata: { batch_num: 0, timestamp: 't', model: '<b>"m"</b> & co' } };
    writeFiles(dir, { 'run.jsonl': jsonl([odd]) });
    const res = await runInProcess(spec, ['report', '--html', 'report.html', 'run.jsonl'], { cwd: dir });
    expect(res.code).toBe(0);
    const dom = await chromium(join(dir, 'report.html'), '--dump-dom');
    expect(dom).not.toContain('data-chart="compression"');
    expect(dom).not.toContain('data-chart="total_tokens"');
    expect(dom).not.toContain('<b>"m"</b>');
    expect(Object.keys(chartData(dom, 'models', 'bar'))).toEqual(['<b>"m"</b> & co']);
  });
});
