import { describe, expect, it } from 'vitest';
import { splitTagBlocks } from '@hermes-datagen/core';
import type { TagSegment } from '@hermes-datagen/core/internal/tagBlocks.js';

const text = (t: string): TagSegment => ({ kind: 'text', text: t });
const block = (tag: string, inner: string): TagSegment => ({ kind: 'block', tag, inner });

describe('splitTagBlocks', () => {
  it.each<[string, string, TagSegment[]]>([
    ['plain text', 'hello', [text('hello')]],
    ['empty text', '', []],
    ['one block between text', 'a<think>b</think>c', [text('a'), block('think', 'b'), text('c')]],
    ['two kinds, in order', '<think>r</think>\n<tool_call>{}</tool_call>', [block('think', 'r'), text('\n'), block('tool_call', '{}')]],
    ['duplicated blocks', '<think>a</think><think>b</think>', [block('think', 'a'), block('think', 'b')]],
    ['nested same tag is one block', '<think>a<think>b</think>c</think>d', [block('think', 'a<think>b</think>c'), text('d')]],
    ['other tags inside a block are opaque', '<think>x<tool_call>{}</tool_call></think>', [block('think', 'x<tool_call>{}</tool_call>')]],
    ['stray close tag is text', 'a</think>b', [text('a</think>b')]],
    ['near-miss spellings are text', '<thinking>x</thinking><Think>y</Think>', [text('<thinking>x</thinking><Think>y</Think>')]],
    [
      'unclosed open tag, scanning goes on',
      'use <think> then <think>r</think>',
      [text('use '), { kind: 'unclosed', tag: 'think', rest: ' then <think>r</think>' }, text(' then '), block('think', 'r')],
    ],
    [
      'unclosed outer around a closed inner',
      '<think>a<think>b</think>',
      [{ kind: 'unclosed', tag: 'think', rest: 'a<think>b</think>' }, text('a'), block('think', 'b')],
    ],
  ])('%s', (_name, input, expected) => {
    expect(splitTagBlocks(input, ['think', 'tool_call'])).toEqual(expected);
  });
});
