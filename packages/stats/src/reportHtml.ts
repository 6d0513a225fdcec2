// `report --html FILE`: one self-contained page (inline CSS and SVG, no script, no external asset) that a
// person opens in a browser. The numbers it draws are those of `report --json`: the summary is embedded
// whole in a <script type="application/json" id="hermes-stats-summary"> block, the page's extra figures
// (token bins, compression) in #hermes-stats-extras, and every chart element carries its numbers in
// data-* attributes, so a test can read the rendered page back and compare.
import { binHistogram, binLabel } from '@hermes-datagen/core';
import type { ReportData } from './reportData.js';
import { NOT_PRICED, shortNumber } from '@hermes-datagen/core';
import type { StatisticsSummary, SummaryDistribution } from '@hermes-datagen/core';
import { columnChart, escapeXml, formatCount, grouped, horizontalBars, type Bar } from './svg.js';

export interface PageInfo {
  readonly title: string;
  /** The inputs, as named on the command line (or the --db file). */
  readonly inputs: readonly string[];
  readonly generatedAt: Date;
  readonly generator: string;
}

const HISTOGRAM_BINS = 24;

export function renderReportHtml(data: ReportData, page: PageInfo): string {
  const { summary } = data;
  const sections = [
    keyFigures(summary),
    section(
      'Tool usage',
      'Calls per tool, split by the outcome of their results (upstream success rule).',
      toolUsage(summary),
      legend(['ok', 'succeeded'], ['fail', 'failed'], ['none', 'no result']),
    ),
    section('Failure rate by tool', 'Tools with failed calls: failed results as a share of the answered calls.', failureRates(summary)),
    section(
      'Reasoning coverage',
      'Assistant (gpt) turns with a non-empty <think> or scratchpad block.',
      reasoning(summary),
      legend(['ok', 'with reasoning'], ['none', 'without']),
    ),
    section('Completion by model', 'Trajectories per metadata.model.', completionByModel(summary), legend(['ok', 'completed'], ['warn', 'not completed'])),
    section('Turns per trajectory', distributionLine(summary.turns), distributionChart('turns', 'Turns per trajectory', summary.turns, 'conversation turns')),
    section(
      'API calls per trajectory',
      distributionLine(summary.api_calls),
      distributionChart('api_calls', 'API calls per trajectory', summary.api_calls, 'api_calls'),
    ),
    tokens(data),
    compression(data),
  ];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${escapeXml(page.generator)}">
<title>${escapeXml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeXml(page.title)}</h1>
<p class="meta">${page.inputs.map((input) => `<code>${escapeXml(input)}</code>`).join(' ')} · generated ${escapeXml(page.generatedAt.toISOString())} by ${escapeXml(page.generator)}</p>
</header>
<main>
${sections.filter((s) => s !== '').join('\n')}
</main>
<script type="application/json" id="hermes-stats-summary">${scriptJson(summary)}</script>
<script type="application/json" id="hermes-stats-extras">${scriptJson({ total_tokens_bins: data.totalTokens, compression: data.compression })}</script>
</body>
</html>
`;
}

function keyFigures(s: StatisticsSummary): string {
  const reasoningRate =
    s.reasoning_statistics.total_assistant_turns === 0 ? 0 : (s.reasoning_statistics.turns_with_reasoning / s.reasoning_statistics.total_assistant_turns) * 100;
  const failureRate = s.tool_calls === 0 ? 0 : (s.tool_failures / s.tool_calls) * 100;
  const discarded = Object.values(s.discarded).reduce((a, b) => a + b, 0);
  const cards = [
    card('trajectories', 'Trajectories', grouped(s.trajectories), s.trajectories, ''),
    card('completed', 'Completed', `${s.completed_rate.toFixed(1)}%`, s.completed, `${grouped(s.completed)} trajectories`),
    card('partial', 'Partial', `${s.partial_rate.toFixed(1)}%`, s.partial, `${grouped(s.partial)} trajectories`),
    card('tool_calls', 'Tool calls', formatCount(s.tool_calls), s.tool_calls, `${grouped(s.tool_failures)} failed (${failureRate.toFixed(1)}%)`),
    card(
      'turns_with_reasoning',
      'Reasoning',
      `${reasoningRate.toFixed(1)}%`,
      s.reasoning_statistics.turns_with_reasoning,
      `of ${grouped(s.reasoning_statistics.total_assistant_turns)} assistant turns`,
    ),
    card('discarded', 'Discarded', grouped(discarded), discarded, 'tombstones'),
  ];
  if (s.usage.trajectories > 0)
    cards.push(
      card(
        'total_tokens',
        'Tokens',
        formatCount(s.usage.total_tokens),
        s.usage.total_tokens,
        `${formatCount(s.usage.prompt_tokens)} prompt · ${formatCount(s.usage.completion_tokens)} completion`,
      ),
    );
  const cost = s.cost_usd;
  cards.push(
    cost === undefined
      ? card('cost_usd', 'Cost', 'not priced', undefined, NOT_PRICED.replace(/^not priced /, ''))
      : card('cost_usd', 'Cost', usd(cost.total), cost.total, `${usd(cost.per_trajectory)} per trajectory · ${grouped(cost.trajectories)} priced`),
  );
  return `<section class="cards">${cards.join('')}</section>`;
}

/** A figure of the summary; `value` undefined: a card with nothing to count (it says what is missing). */
function card(key: string, label: string, shown: string, value: number | undefined, detail: string): string {
  return `<div class="card" data-key="${key}"${value === undefined ? '' : ` data-value="${value}"`}><div class="card-label">${escapeXml(label)}</div><div class="card-value">${escapeXml(shown)}</div><div class="card-detail">${escapeXml(detail)}</div></div>`;
}

function section(title: string, description: string, body: string, extra = ''): string {
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return `<section id="${id}"><h2>${escapeXml(title)}</h2><p class="desc">${escapeXml(description)}</p>${extra}${body}</section>`;
}

function legend(...items: readonly (readonly [string, string])[]): string {
  return `<p class="legend">${items.map(([kind, label]) => `<span><i class="swatch ${kind}"></i>${escapeXml(label)}</span>`).join('')}</p>`;
}

function empty(text: string): string {
  return `<p class="empty">${escapeXml(text)}</p>`;
}

function toolUsage(s: StatisticsSummary): string {
  const tools = Object.entries(s.tool_statistics).sort(([, a], [, b]) => b.count - a.count);
  if (tools.length === 0) return empty('No tool calls were made.');
  const bars: Bar[] = tools.map(([name, t]) => ({
    key: name,
    label: name,
    segments: [
      { value: t.success, kind: 'ok', label: 'succeeded' },
      { value: t.failure, kind: 'fail', label: 'failed' },
      { value: Math.max(0, t.count - t.success - t.failure), kind: 'none', label: 'without a result' },
    ],
    note: `${grouped(t.count)} calls · ${t.failure_rate.toFixed(1)}% failed`,
    data: { count: t.count, success: t.success, failure: t.failure, 'failure-rate': t.failure_rate },
  }));
  return horizontalBars('tools', 'Tool calls per tool', bars);
}

function failureRates(s: StatisticsSummary): string {
  const tools = Object.entries(s.tool_statistics)
    .filter(([, t]) => t.failure > 0)
    .sort(([, a], [, b]) => b.failure_rate - a.failure_rate);
  if (tools.length === 0) return empty('No tool call failed.');
  const bars: Bar[] = tools.map(([name, t]) => ({
    key: name,
    label: name,
    segments: [{ value: t.failure_rate, kind: 'fail', label: '% failed' }],
    note: `${t.failure_rate.toFixed(1)}% (${t.failure} of ${t.success + t.failure})`,
    data: { 'failure-rate': t.failure_rate, failure: t.failure },
  }));
  return horizontalBars('failure_rates', 'Failure rate per tool (percent)', bars, 100);
}

function reasoning(s: StatisticsSummary): string {
  const r = s.reasoning_statistics;
  if (r.total_assistant_turns === 0) return empty('No assistant turns recorded.');
  return horizontalBars('reasoning', 'Assistant turns with and without reasoning', [
    {
      key: 'assistant_turns',
      label: 'assistant turns',
      segments: [
        { value: r.turns_with_reasoning, kind: 'ok', label: 'with reasoning' },
        { value: r.turns_without_reasoning, kind: 'none', label: 'without reasoning' },
      ],
      note: `${((r.turns_with_reasoning / r.total_assistant_turns) * 100).toFixed(1)}% of ${grouped(r.total_assistant_turns)}`,
      data: { total: r.total_assistant_turns, with: r.turns_with_reasoning, without: r.turns_without_reasoning },
    },
  ]);
}

function completionByModel(s: StatisticsSummary): string {
  const models = Object.entries(s.by_model).sort(([, a], [, b]) => b.trajectories - a.trajectories);
  if (models.length === 0) return empty('No trajectories.');
  const bars: Bar[] = models.map(([model, g]) => ({
    key: model,
    label: model,
    segments: [
      { value: g.completed, kind: 'ok', label: 'completed' },
      { value: g.trajectories - g.completed, kind: 'warn', label: 'not completed' },
    ],
    note: `${g.completed_rate.toFixed(1)}% completed · ${g.partial_rate.toFixed(1)}% partial`,
    data: { trajectories: g.trajectories, completed: g.completed, partial: g.partial },
  }));
  return horizontalBars('models', 'Completed trajectories per model', bars);
}

function distributionLine(d: SummaryDistribution): string {
  return d.min === null ? 'No trajectories.' : `min ${d.min} · median ${shortNumber(d.median)} · p90 ${shortNumber(d.p90)} · max ${d.max}`;
}

function distributionChart(chart: string, title: string, d: SummaryDistribution, xTitle: string): string {
  const bins = binHistogram(d.histogram, HISTOGRAM_BINS);
  if (bins.length === 0) return empty('No trajectories.');
  return columnChart(
    chart,
    title,
    bins.map((bin) => ({ label: binLabel(bin), value: bin.count, data: { from: bin.from, to: bin.to, trajectories: bin.count } })),
    xTitle,
  );
}

function tokens(data: ReportData): string {
  const { usage } = data.summary;
  if (usage.trajectories === 0) return '';
  const chart = columnChart(
    'total_tokens',
    'Total tokens per trajectory',
    data.totalTokens.map((bin) => ({ label: formatCount(bin.from), value: bin.count, data: { from: bin.from, to: bin.to, trajectories: bin.count } })),
    'metadata.usage.total_tokens (bin start; the last bin also holds the 5% largest)',
  );
  const line = `${grouped(usage.total_tokens)} tokens over ${grouped(usage.trajectories)} trajectories: ${grouped(usage.prompt_tokens)} prompt, ${grouped(usage.completion_tokens)} completion.`;
  return section('Tokens per trajectory', line, chart);
}

function compression(data: ReportData): string {
  const c = data.compression;
  if (!c) return '';
  const saved = c.tokens_before === 0 ? 0 : ((c.tokens_before - c.tokens_after) / c.tokens_before) * 100;
  const chart = horizontalBars('compression', 'Tokens before and after compression', [
    {
      key: 'before',
      label: 'before compression',
      segments: [{ value: c.tokens_before, kind: 'none', label: 'tokens' }],
      note: formatCount(c.tokens_before),
      data: { tokens: c.tokens_before },
    },
    {
      key: 'after',
      label: 'after compression',
      segments: [{ value: c.tokens_after, kind: 'ok', label: 'tokens' }],
      note: formatCount(c.tokens_after),
      data: { tokens: c.tokens_after },
    },
  ]);
  const others = Object.entries(c.statuses)
    .filter(([status]) => status !== 'compressed')
    .map(([status, n]) => `${grouped(n)} ${status}`);
  return section(
    'Compression',
    `${grouped(c.compressed)} of ${grouped(c.trajectories)} trajectories compressed${others.length > 0 ? ` (${others.join(', ')})` : ''}; ` +
      `over the ${grouped(c.counted)} whose tokens were counted, ${grouped(c.tokens_before)} tokens before, ${grouped(c.tokens_after)} after (${saved.toFixed(1)}% saved).`,
    chart,
  );
}

/** JSON inside <script>: "<" escaped so no text in the data can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

const STYLE = `
:root { --ok: #2f9e6e; --fail: #d9534f; --warn: #e0a030; --none: #b8c2cc; --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --bg: #f7f8fa; --accent: #3867d6; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
header { padding: 28px 40px 8px; }
h1 { margin: 0 0 4px; font-size: 26px; }
.meta { margin: 0; color: var(--muted); font-size: 13px; }
.meta code { background: #e8ebef; padding: 1px 5px; border-radius: 3px; }
main { padding: 8px 40px 40px; max-width: 1600px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin: 16px 0; }
h2 { margin: 0; font-size: 18px; }
.desc { margin: 2px 0 10px; color: var(--muted); font-size: 13px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: 12px; background: none; border: 0; padding: 0; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card-label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card-value { font-size: 26px; font-weight: 600; }
.card-detail { color: var(--muted); font-size: 12px; min-height: 1em; }
.legend { margin: 0 0 6px; font-size: 12px; color: var(--muted); }
.legend span { margin-right: 14px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.empty { color: var(--muted); font-style: italic; }
svg.chart { display: block; max-width: 1300px; font-size: 12px; }
svg .label { fill: var(--ink); }
svg .note, svg .tick, svg .axis-title { fill: var(--muted); }
svg .grid { stroke: var(--line); }
.ok { fill: var(--ok); background: var(--ok); }
.fail { fill: var(--fail); background: var(--fail); }
.warn { fill: var(--warn); background: var(--warn); }
.none { fill: var(--none); background: var(--none); }
.bar-fill { fill: var(--accent); }
`;

/** Dollars as a person reads them: cents, or four places below a dollar. */
function usd(value: number): string {
  return `$${value >= 1 ? value.toFixed(2) : value.toFixed(4)}`;
}
