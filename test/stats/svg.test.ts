import { describe, expect, it } from 'vitest';
import { columnChart, escapeXml, formatCount, grouped, horizontalBars } from '@hermes-datagen/stats/internal/svg.js';

describe('svg charts', () => {
  it('scales stacked bars to the largest total and carries the numbers as data attributes', () => {
    const svg = horizontalBars('tools', 'Calls', [
      {
        key: 'a',
        label: 'a',
        segments: [
          { value: 30, kind: 'ok', label: 'ok' },
          { value: 10, kind: 'fail', label: 'failed' },
        ],
        note: '40',
        data: { count: 40 },
      },
      { key: 'b&c', label: 'b&c', segments: [{ value: 20, kind: 'ok', label: 'ok' }], note: '20', data: { count: 20 } },
    ]);
    expect(svg).toContain('data-chart="tools"');
    expect(svg).toContain('<g class="bar" data-key="a" data-count="40">');
    expect(svg).toContain('<g class="bar" data-key="b&amp;c" data-count="20">');
    const widths = [...svg.matchAll(/<rect class="(\w+)" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)].map(([, kind, w]) => [kind, Number(w)]);
    // 570 px of plot: 30 + 10 fill it, 20 takes half.
    expect(widths).toEqual([
      ['ok', 427.5],
      ['fail', 142.5],
      ['ok', 285],
    ]);
  });

  it('scales bars to a given maximum: a 2.1% failure rate out of 100 is a sliver, not the whole plot', () => {
    const svg = horizontalBars(
      'failure_rates',
      'Failure rate',
      [{ key: 'terminal', label: 'terminal', segments: [{ value: 2.1, kind: 'fail', label: '% failed' }], note: '2.1%', data: {} }],
      100,
    );
    expect(Number(/<rect class="fail" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/.exec(svg)?.[1])).toBe(12);
  });

  it('draws one column per bin under a round axis maximum', () => {
    const svg = columnChart(
      'turns',
      'Turns',
      [
        { label: '1', value: 3, data: { trajectories: 3 } },
        { label: '2', value: 9, data: { trajectories: 9 } },
      ],
      'turns',
    );
    expect(svg.match(/<g class="column"/g)).toHaveLength(2);
    expect(svg).toContain('>10</text>'); // 9 rounds up to an axis of 10
  });

  it('gives a count axis whole ticks: a maximum of 13 makes an axis of 16, not 15 with a tick at 7.5', () => {
    const svg = columnChart('turns', 'Turns', [{ label: '11', value: 13, data: {} }], 'turns');
    const ticks = [...svg.matchAll(/<text class="tick" [^>]*text-anchor="end"[^>]*>([^<]+)</g)].map((m) => m[1]);
    expect(ticks).toEqual(['0', '8', '16']);
  });

  it('escapes text and formats numbers for people', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect([999, 1234, 25_000, 2_500_000].map(formatCount)).toEqual(['999', '1.2k', '25k', '2.5M']);
    expect(grouped(4661598)).toBe('4,661,598');
  });
});
