// scanMarkup: clean blocks are counted in order; every tag token outside a clean block is reported.
import { describe, expect, it } from 'vitest';
import { scanMarkup, type MarkupTag } from '@hermes-datagen/verify/internal/markup.js';

const GPT: ReadonlySet<MarkupTag> = new Set(['think', 'REASONING_SCRATCHPAD', 'tool_call']);

describe('scanMarkup', () => {
  it('reads clean blocks in order, with where the first opens', () => {
    const scan = scanMarkup('  <think>\nplan\n</think>\ntext\n<tool_call>\n{}\n</tool_call>', GPT);
    expect(scan).toEqual({ blocks: ['think', 'tool_call'], firstBlockAt: 2, problems: [] });
  });

  it.each<[string, string, string]>([
    ['a stray close tag', '<think>a</think>b</think>', 'stray </think> with no <think> before it (at character 17)'],
    [
      'a tag inside a block',
      '<think>a <tool_call> b</think>',
      '<tool_call> inside a <think> block (at character 9): unescaped text that parsers read as markup',
    ],
    [
      'a nested open of the same tag',
      '<think>a<think>b</think>',
      '<think> inside a <think> block (at character 8): unescaped text that parsers read as markup',
    ],
    ['an unclosed block', '<think>x</think><tool_call>{"name"', '<tool_call> at character 16 is never closed'],
    [
      'a block not allowed in this turn',
      '<think>x</think><tool_response>{}</tool_response>',
      'a <tool_response> block does not belong in this turn (at character 16)',
    ],
  ])('reports %s', (_name, value, detail) => {
    expect(scanMarkup(value, GPT).problems.map((p) => p.detail)).toContain(detail);
  });

  it('ignores tags it does not know and text with no tags', () => {
    expect(scanMarkup('<b>bold</b> and <thinking>x</thinking>', GPT)).toEqual({ blocks: [], firstBlockAt: -1, problems: [] });
  });
});
