// hermes-stats report --html as a person sees it: the page of a real run (hermes-generate on the demo's
// prompts against the scripted endpoint, plus one prompt whose file is missing so that one tool call fails),
// laid out by Chromium at a laptop's 1280x800 and at a phone's 400 px, and measured in the rendered page:
// the content uses the width, count axes tick whole numbers, the tokens histogram spreads the records, a
// small failure share is drawn small, and nothing scrolls sideways.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StatisticsSummary } from '@hermes-datagen/core';
import { launchChromium } from '../util/browser.js';
import { binPath, REPO_ROOT, runProcess } from '../util/cli.js';
import { expectNoSecret, TEST_MODEL } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { startTestkit } from '../util/servers.js';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

const MISSING_FILE_PROMPT = { id: 'missing-notes', prompt: 'Read meeting-notes.txt and list the action items it names.' };

/** The report page of a real run in `dir`, and the run's summary (report --json). */
async function reportOfARun(dir: string): Promise<{ page: string; summary: StatisticsSummary }> {
  const prompts = join(dir, 'prompts.jsonl');
  writeFileSync(prompts, `${readFileSync(join(REPO_ROOT, 'fixtures/prompts.jsonl'), 'utf8')}${JSON.stringify(MISSING_FILE_PROMPT)}\n`);
  const url = await startTestkit();
  // From the repository, as make demo runs it: the prompts' cwd fields name fixtures/demo/workspaces/*.
  const generate = await runProcess(
    binPath('generate', 'hermes-generate'),
    [
      prompts,
      '--base-url',
      url,
      '--model',
      TEST_MODEL,
      '--distribution',
      'development',
      '--seed',
      '1',
      '-c',
      '8',
      '--workspace-root',
      join(dir, 'workspaces'),
      '--cwd-root',
      REPO_ROOT,
    ],
    { env: { HERMES_API_KEY: TEST_API_KEY, SHLVL: '1' } },
  );
  expect(generate.code, generate.stderr).toBe(0);
  expectNoSecret(dir, generate);
  const run = join(dir, 'run.jsonl');
  writeFileSync(run, generate.stdout);
  const page = join(dir, 'report.html');
  const report = await runProcess(binPath('stats', 'hermes-stats'), ['report', '--html', page, run]);
  expect(report.code, report.stderr).toBe(0);
  const json = await runProcess(binPath('stats', 'hermes-stats'), ['report', '--json', run]);
  expect(json.code, json.stderr).toBe(0);
  return { page, summary: JSON.parse(json.stdout) as StatisticsSummary };
}

async function open(file: string, width: number, height: number): Promise<Page> {
  const browser = await launchChromium({ width, height });
  closing.push(() => browser.close());
  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(pathToFileURL(file).href);
  return page;
}

/** How far the page reaches past the viewport sideways (0: no horizontal scroll). */
function sidewaysOverflow(page: Page): Promise<{ document: number; body: number }> {
  return page.evaluate(() => ({
    document: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    body: document.body.scrollWidth - document.documentElement.clientWidth,
  }));
}

describe('hermes-stats report --html, rendered', () => {
  // One run serves both viewports.
  const dir = mkdtempSync(join(tmpdir(), 'hermes-report-layout-'));
  let report: { page: string; summary: StatisticsSummary };
  beforeAll(async () => {
    report = await reportOfARun(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('at 1280x800 the content uses the width, count axes tick whole numbers, tokens spread over bins, and a small failure share is drawn small', async () => {
    const { page: file, summary } = report;
    const failing = Object.entries(summary.tool_statistics).filter(([, t]) => t.failure > 0);
    expect(failing.map(([name]) => name)).toEqual(['read_file']);
    const rate = summary.tool_statistics['read_file']!.failure_rate;
    expect(rate).toBeGreaterThan(0);
    expect(rate).toBeLessThan(20);

    const page = await open(file, 1280, 800);
    expect(await sidewaysOverflow(page)).toEqual({ document: 0, body: 0 });
    const layout = await page.evaluate(() => {
      const width = (element: Element): number => element.getBoundingClientRect().width;
      const main = document.querySelector('main')!;
      const style = getComputedStyle(main);
      return {
        mainContent: width(main) - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight),
        sections: [...main.querySelectorAll(':scope > section')].map((section) => [section.id || section.className, width(section)] as const),
        charts: [...document.querySelectorAll('svg.chart')].map((svg) => [svg.getAttribute('data-chart'), width(svg)] as const),
      };
    });
    expect(layout.mainContent).toBeGreaterThanOrEqual(1100);
    for (const [section, width] of layout.sections) expect(width, `section ${section}`).toBeGreaterThanOrEqual(1100);
    expect(layout.charts.length).toBeGreaterThanOrEqual(6);
    for (const [chart, width] of layout.charts) expect(width, `chart ${chart}`).toBeGreaterThanOrEqual(1000);

    // The y axis of every histogram counts trajectories: its ticks (right-aligned, left of the plot) are
    // whole numbers from 0, each higher than the last.
    const yTicks = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('svg.chart')]
          .filter((svg) => svg.querySelector('g.column') !== null)
          .map((svg) => [svg.getAttribute('data-chart')!, [...svg.querySelectorAll('text.tick[text-anchor="end"]')].map((tick) => tick.textContent ?? '')]),
      ),
    );
    expect(Object.keys(yTicks).sort()).toEqual(['api_calls', 'total_tokens', 'turns']);
    for (const [chart, ticks] of Object.entries(yTicks)) {
      expect(ticks.length, chart).toBeGreaterThanOrEqual(2);
      for (const tick of ticks) expect(tick, `${chart} tick`).toMatch(/^(0|[1-9][0-9]*)$/);
      const values = ticks.map(Number);
      expect(values[0], chart).toBe(0);
      expect(values, chart).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size, chart).toBe(values.length);
    }

    // Every trajectory with usage is in one token bin, and no bin holds most of them.
    const tokenBins = await page.evaluate(() =>
      [...document.querySelectorAll('svg[data-chart="total_tokens"] g.column')].map((column) => Number(column.getAttribute('data-trajectories'))),
    );
    expect(tokenBins.reduce((sum, n) => sum + n, 0)).toBe(summary.usage.trajectories);
    expect(summary.usage.trajectories).toBeGreaterThanOrEqual(30);
    expect(tokenBins.filter((n) => n > 0).length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...tokenBins)).toBeLessThanOrEqual(summary.usage.trajectories / 2);

    // Both bar charts share one plot width: the most-called tool's bar fills it. A failure rate is drawn
    // on a scale of 100%, so its bar is that share of the plot, not the whole of it.
    const bars = await page.evaluate(() => {
      const drawn = (chart: string): Record<string, number> =>
        Object.fromEntries(
          [...document.querySelectorAll(`svg[data-chart="${chart}"] g.bar`)].map((bar) => [
            bar.getAttribute('data-key')!,
            [...bar.querySelectorAll('rect')].reduce((sum, rect) => sum + rect.getBoundingClientRect().width, 0),
          ]),
        );
      return { tools: drawn('tools'), failures: drawn('failure_rates') };
    });
    const plot = Math.max(...Object.values(bars.tools));
    expect(plot).toBeGreaterThan(500);
    expect(Object.keys(bars.failures)).toEqual(['read_file']);
    expect(bars.failures['read_file']! / plot).toBeCloseTo(rate / 100, 2);
  });

  it('at 400 px wide nothing scrolls sideways, and the charts shrink to the column', async () => {
    const page = await open(report.page, 400, 800);
    expect(await sidewaysOverflow(page)).toEqual({ document: 0, body: 0 });
    const widest = await page.evaluate(() => Math.max(...[...document.querySelectorAll('svg.chart')].map((svg) => svg.getBoundingClientRect().right)));
    expect(widest).toBeLessThanOrEqual(400);
    expect(widest).toBeGreaterThan(300);
  });
});
