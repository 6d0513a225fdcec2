// tagTokens and the token-based splitTagBlocks give exactly what the former indexOf scan gave: the
// former implementation is kept here as the oracle and both run over tricky and random texts.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseGptValue, splitTagBlocks, tagTokens } from '@hermes-datagen/core';
import { JsonNumber } from '@hermes-datagen/core/internal/losslessJson.js';
import { createRng } from '@hermes-datagen/core/internal/rng.js';
import type { TagSegment } from '@hermes-datagen/core/internal/tagBlocks.js';
import { randomText } from '../util/randomText.js';

/** splitTagBlocks as it was before tagTokens: indexOf for each tag's next open, depth-counted close. */
function indexOfSplit(text: string, tags: readonly string[]): TagSegment[] {
  const segments: TagSegment[] = [];
  let textStart = 0;
  let searchFrom = 0;
  for (;;) {
    let open: { tag: string; index: number } | undefined;
    for (const tag of tags) {
      const index = text.indexOf(`<${tag}>`, searchFrom);
      if (index !== -1 && (!open || index < open.index)) open = { tag, index };
    }
    if (!open) break;
    if (open.index > textStart) segments.push({ kind: 'text', text: text.slice(textStart, open.index) });
    const innerStart = open.index + open.tag.length + 2;
    let depth = 1;
    let position = innerStart;
    let closeIndex = -1;
    for (;;) {
      const close = text.indexOf(`</${open.tag}>`, position);
      if (close === -1) break;
      const nested = text.indexOf(`<${open.tag}>`, position);
      if (nested !== -1 && nested < close) {
        depth += 1;
        position = nested + open.tag.length + 2;
        continue;
      }
      depth -= 1;
      if (depth === 0) {
        closeIndex = close;
        break;
      }
      position = close + open.tag.length + 3;
    }
    if (closeIndex === -1) {
      segments.push({ kind: 'unclosed', tag: open.tag, rest: text.slice(innerStart) });
      textStart = innerStart;
      searchFrom = innerStart;
      continue;
    }
    segments.push({ kind: 'block', tag: open.tag, inner: text.slice(innerStart, closeIndex) });
    textStart = closeIndex + open.tag.length + 3;
    searchFrom = textStart;
  }
  if (textStart < text.length) segments.push({ kind: 'text', text: text.slice(textStart) });
  return segments;
}

/** The tokens a regex over all the spellings finds. */
function regexTokens(text: string, tags: readonly string[]): { tag: string; closing: boolean; index: number }[] {
  return [...text.matchAll(new RegExp(`<(/?)(${tags.join('|')})>`, 'g'))].map((m) => ({ tag: m[2] as string, closing: m[1] === '/', index: m.index }));
}

const GPT = ['think', 'REASONING_SCRATCHPAD', 'tool_call'];
const ALL = [...GPT, 'tool_response'];
const TAG_SETS = [GPT, ALL, ['think', 'tool_call'], ['think', 'thinking', 'thought', 'reasoning', 'REASONING_SCRATCHPAD'], ['tool_response']];
const PIECES = [
  '<think>',
  '</think>',
  '<thinking>',
  '</thinking>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
  '<REASONING_SCRATCHPAD>',
  '</REASONING_SCRATCHPAD>',
  '<',
  '</',
  '>',
  '<<',
  '<think',
  'think>',
  '</ think>',
  '<Think>',
  ' ',
  '\n',
  'a',
  '{"name": "terminal", "arguments": {"n": 12345678901234567890, "x": 1.0}}',
];

const TRICKY = [
  '',
  'plain',
  '<think>a</think>',
  '<think>\n</think>\n<think>unclosed',
  '<think>a<think>b</think>c</think>d',
  '<think>a<think>b</think>',
  '</think>stray<think>x</think>',
  '<think>reasoning says </tool_call> and <tool_call> here</think>\n<tool_call>\n{"name": "t", "arguments": {}}\n</tool_call>',
  '<think>r</think>\n<tool_call>\n{"name": "t", "arguments": {"big": 123456789012345678901234567890}}\n</tool_call>',
  '<think>r</think>\n<tool_call>\n{"name": "t", "arguments": {"cut": ',
  '<<think>>x<</think>>',
  '<thinking>x</thinking><think>y</think>',
];

const randomTagText = (rng: () => number): string => randomText(rng, PIECES, 14);

describe('tagTokens', () => {
  it('finds what a regex over every spelling finds, in tricky and random texts', () => {
    const rng = createRng(11);
    const texts = [...TRICKY, ...Array.from({ length: 3000 }, () => randomTagText(rng))];
    for (const tags of TAG_SETS) {
      const differs = texts.find((text) => !isDeepStrictEqual(tagTokens(text, tags), regexTokens(text, tags)));
      expect(differs === undefined ? undefined : tagTokens(differs, tags)).toEqual(differs === undefined ? undefined : regexTokens(differs, tags));
    }
  });

  it('tells a tag from a longer one that begins with it', () => {
    expect(tagTokens('<thinking></think>', ['think', 'thinking'])).toEqual([
      { tag: 'thinking', closing: false, index: 0 },
      { tag: 'think', closing: true, index: 10 },
    ]);
  });
});

describe('splitTagBlocks over tokens', () => {
  it('splits as the indexOf scan did, with its own tokens or those of more tags', () => {
    const rng = createRng(7);
    const texts = [...TRICKY, ...Array.from({ length: 3000 }, () => randomTagText(rng))];
    for (const tags of TAG_SETS) {
      const withMore = (text: string) => tagTokens(text, [...new Set([...tags, ...ALL])]);
      const differs = texts.find(
        (text) =>
          !isDeepStrictEqual(splitTagBlocks(text, tags), indexOfSplit(text, tags)) ||
          !isDeepStrictEqual(splitTagBlocks(text, tags, withMore(text)), indexOfSplit(text, tags)),
      );
      expect(differs === undefined ? [] : [splitTagBlocks(differs, tags), splitTagBlocks(differs, tags, withMore(differs))]).toEqual(
        differs === undefined ? [] : [indexOfSplit(differs, tags), indexOfSplit(differs, tags)],
      );
    }
  });

  it('parseGptValue reads the same with the tokens of all four markup tags (big integers, forged tags, unclosed think)', () => {
    const rng = createRng(3);
    const texts = [...TRICKY, ...Array.from({ length: 2000 }, () => randomTagText(rng))];
    const differs = texts.find((text) => !isDeepStrictEqual(parseGptValue(text, tagTokens(text, ALL)), parseGptValue(text)));
    expect(differs === undefined ? undefined : parseGptValue(differs, tagTokens(differs, ALL))).toEqual(
      differs === undefined ? undefined : parseGptValue(differs),
    );
    const bigInteger = TRICKY[8] as string;
    expect(parseGptValue(bigInteger, tagTokens(bigInteger, ALL)).toolCalls[0]?.arguments).toEqual({ big: new JsonNumber('123456789012345678901234567890') });
  });
});
