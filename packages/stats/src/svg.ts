// Inline SVG charts for the HTML report: horizontal (optionally stacked) bars and a column histogram.
// Plain markup with no script, so the page has no dependency and renders anywhere; colours come from
// CSS classes the page defines. Every bar carries its numbers as data-* attributes (and a <title>
// tooltip), so what a chart draws can be read back and checked against the summary.

export interface Segment {
  readonly value: number;
  /** CSS class giving the colour. */
  readonly kind: string;
  /** What the segment counts, for the tooltip. */
  readonly label: string;
}

export interface Bar {
  readonly key: string;
  readonly label: string;
  readonly segments: readonly Segment[];
  /** Text right of the bar. */
  readonly note: string;
  readonly data: Readonly<Record<string, number | string>>;
}

export interface Column {
  readonly label: string;
  readonly value: number;
  readonly data: Readonly<Record<string, number | string>>;
}

// The viewBox width: the page lets a chart grow to its section's width, so near 1:1 on a laptop screen.
const WIDTH = 1000;
const LABEL_WIDTH = 190;
const NOTE_WIDTH = 240;
const ROW_HEIGHT = 24;
const BAR_HEIGHT = 16;
const MAX_LABEL_CHARS = 28;

/**
 * One row per bar, scaled so that the largest bar total fills the plot, or so that `scaleMax` does (100
 * for percentages: a 2% bar is then a fiftieth of the plot, not all of it).
 */
export function horizontalBars(chart: string, title: string, bars: readonly Bar[], scaleMax = Math.max(1, ...bars.map((bar) => total(bar.segments)))): string {
  const plotWidth = WIDTH - LABEL_WIDTH - NOTE_WIDTH;
  const height = bars.length * ROW_HEIGHT + 8;
  const rows = bars.map((bar, i) => {
    const y = 4 + i * ROW_HEIGHT;
    let x = LABEL_WIDTH;
    const rects = bar.segments
      .filter((segment) => segment.value > 0)
      .map((segment) => {
        const w = (segment.value / scaleMax) * plotWidth;
        const rect = `<rect class="${segment.kind}" x="${fmt(x)}" y="${y + (ROW_HEIGHT - BAR_HEIGHT) / 2}" width="${fmt(Math.max(w, 1))}" height="${BAR_HEIGHT}" rx="2"><title>${escapeXml(`${bar.label}: ${segment.value} ${segment.label}`)}</title></rect>`;
        x += w;
        return rect;
      })
      .join('');
    const label = bar.label.length > MAX_LABEL_CHARS ? `${bar.label.slice(0, MAX_LABEL_CHARS - 1)}…` : bar.label;
    return (
      `<g class="bar" data-key="${escapeXml(bar.key)}"${dataAttributes(bar.data)}>` +
      `<text class="label" x="${LABEL_WIDTH - 8}" y="${y + ROW_HEIGHT / 2}" text-anchor="end" dominant-baseline="central">${escapeXml(label)}<title>${escapeXml(bar.label)}</title></text>` +
      rects +
      `<text class="note" x="${fmt(x + 6)}" y="${y + ROW_HEIGHT / 2}" dominant-baseline="central">${escapeXml(bar.note)}</text></g>`
    );
  });
  return svg(chart, title, height, rows.join(''));
}

/** A histogram: one column per bin, y axis from 0 to a round, even maximum (its ticks are whole counts). */
export function columnChart(chart: string, title: string, columns: readonly Column[], xTitle: string): string {
  const height = 230;
  const left = 52;
  const right = 12;
  const top = 10;
  const bottom = 46;
  const plotWidth = WIDTH - left - right;
  const plotHeight = height - top - bottom;
  const yMax = evenCount(roundUp(Math.max(1, ...columns.map((c) => c.value))));
  const slot = plotWidth / Math.max(1, columns.length);
  const labelEvery = Math.max(1, Math.ceil(columns.length / 12));
  const ticks = [0, yMax / 2, yMax]
    .map((tick) => {
      const y = top + plotHeight - (tick / yMax) * plotHeight;
      return `<line class="grid" x1="${left}" x2="${WIDTH - right}" y1="${fmt(y)}" y2="${fmt(y)}"/><text class="tick" x="${left - 6}" y="${fmt(y)}" text-anchor="end" dominant-baseline="central">${formatCount(tick)}</text>`;
    })
    .join('');
  const bars = columns
    .map((column, i) => {
      const h = (column.value / yMax) * plotHeight;
      const x = left + i * slot;
      const label =
        i % labelEvery === 0
          ? `<text class="tick" x="${fmt(x + slot / 2)}" y="${top + plotHeight + 14}" text-anchor="middle">${escapeXml(column.label)}</text>`
          : '';
      return (
        `<g class="column" data-key="${escapeXml(column.label)}"${dataAttributes(column.data)}>` +
        `<rect class="bar-fill" x="${fmt(x + slot * 0.1)}" y="${fmt(top + plotHeight - h)}" width="${fmt(slot * 0.8)}" height="${fmt(h)}" rx="1"><title>${escapeXml(`${column.label}: ${column.value}`)}</title></rect>${label}</g>`
      );
    })
    .join('');
  const axisTitle = `<text class="axis-title" x="${left + plotWidth / 2}" y="${height - 8}" text-anchor="middle">${escapeXml(xTitle)}</text>`;
  return svg(chart, title, height, ticks + bars + axisTitle);
}

function svg(chart: string, title: string, height: number, body: string): string {
  return `<svg class="chart" data-chart="${escapeXml(chart)}" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="${escapeXml(title)}" xmlns="http://www.w3.org/2000/svg"><title>${escapeXml(title)}</title>${body}</svg>`;
}

function total(segments: readonly Segment[]): number {
  return segments.reduce((sum, segment) => sum + segment.value, 0);
}

function dataAttributes(data: Readonly<Record<string, number | string>>): string {
  return Object.entries(data)
    .map(([name, value]) => ` data-${name}="${escapeXml(String(value))}"`)
    .join('');
}

/** A round axis maximum a little above `value`, so the tallest column nearly fills the plot. */
function roundUp(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * power >= value) ?? 10) * power;
}

/** The axis maximum as an even whole number, so that its middle tick is a whole count too (15 -> 16, not 7.5). */
function evenCount(value: number): number {
  return 2 * Math.ceil(value / 2);
}

/** 1234 -> 1.2k, 2500000 -> 2.5M: tick labels and card values stay short. */
export function formatCount(value: number): string {
  if (Math.abs(value) >= 1e6) return `${trim(value / 1e6)}M`;
  if (Math.abs(value) >= 1e3) return `${trim(value / 1e3)}k`;
  return trim(value);
}

/** 4661598 -> 4,661,598. */
export function grouped(value: number): string {
  return value.toLocaleString('en-US');
}

function trim(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function fmt(value: number): string {
  return String(Math.round(value * 10) / 10);
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
