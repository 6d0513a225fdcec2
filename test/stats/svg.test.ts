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
    // 330 px of plot: 30 + 10 fill it, 20 takes half.
    expect(widths).toEqual([
      ['ok', 247.5],
      ['fail', 82.5],
      ['ok', 165],
    ]);
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

  it('escapes text and formats numbers for people', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect([999, 1234, 25_000, 2_500_000].map(formatCount)).toEqual(['999', '1.2k', '25k', '2.5M']);
    expect(grouped(4661598)).toBe('4,661,598');
  });
});
