// The tiktoken-engine tokenizer gives exactly the ids of the general one (@lenml/tokenizers, which
// matches Hugging Face's tokenizers) for Qwen3's tokenizer.json: on rendered chats of the synthetic
// corpus and on text chosen for the edges (NFC, contractions, whitespace runs, CRLF, digits, emoji,
// added tokens glued to text); decode gives the text back. Tokenizers it cannot run exactly are left
// to the general one.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { TokenizerLoader } from '@lenml/tokenizers';
import { byteLevelBpe, type TokenEngine } from '@hermes-datagen/to-atropos/internal/byteLevelBpe.js';
import { loadChatTokenizer } from '@hermes-datagen/to-atropos/internal/chatTokenizer.js';
import { toAtroposMessages } from '@hermes-datagen/to-atropos/internal/messages.js';
// @ts-expect-error: the corpus generator is plain JavaScript without type declarations
import { makeTrajectory } from '../../bench/synthetic/trajectory.mjs';
import { REPO_ROOT } from '../util/cli.js';
import { QWEN3_PACKAGE } from './tokenizer.js';

const require = createRequire(import.meta.url);
const tokenizerJSON = JSON.parse(readFileSync(require.resolve(`${QWEN3_PACKAGE}/models/tokenizer.json`), 'utf8')) as Record<string, unknown>;
const tokenizerConfig = JSON.parse(readFileSync(require.resolve(`${QWEN3_PACKAGE}/models/tokenizer_config.json`), 'utf8')) as Record<string, unknown>;

let fast: TokenEngine;
let general: ReturnType<typeof TokenizerLoader.fromPreTrained>;
beforeAll(() => {
  const engine = byteLevelBpe(tokenizerJSON);
  if (!engine) throw new Error("Qwen3's tokenizer should run on the tiktoken engine");
  fast = engine;
  general = TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizerJSON as never, tokenizerConfig: tokenizerConfig as never });
});

const reference = (text: string) => general.encode(text, { add_special_tokens: false });

describe('the tiktoken engine on Qwen3 tokenizer.json', () => {
  it.each([
    ['NFC', 'Cafe\u0301 and caf\u00e9, \u212b, \u1100\u1161'],
    ['contractions', "It's we'LL they'Re I'd don't"],
    ['whitespace runs', 'a  b\t\t c   \n\n  d \r\n\r\n  e    '],
    ['digits', '12345 3.14159 0x1F 2026-12-01'],
    ['emoji and scripts', '👩‍💻 naïve 日本語のテキスト Привет مرحبا'],
    ['added tokens glued to text', '<|im_start|>assistant\n<think>\nx</think>\n\n<tool_call>\n{"a": 1}\n</tool_call><|im_end|>\n<|im_start|>user'],
    ['lone surrogate', 'a\ud83d b'],
  ])('%s', (_what, text) => {
    expect(fast.encode(text)).toEqual(reference(text));
    if (!text.includes('\ud83d ')) expect(fast.decode(fast.encode(text))).toBe(text.normalize('NFC'));
  });

  it('on rendered Qwen3 chats of the synthetic corpus: the same ids, and the text back', async () => {
    const qwen3 = await loadChatTokenizer({ tokenizer: QWEN3_PACKAGE, cwd: REPO_ROOT });
    for (let i = 0; i < 40; i += 1) {
      const { record } = makeTrajectory(7, i) as { record: { conversations: Parameters<typeof toAtroposMessages>[0] } };
      const text = qwen3.render(toAtroposMessages(record.conversations, 'raw').messages, false);
      const ids = fast.encode(text);
      expect(ids, `chat ${i}`).toEqual(reference(text));
      expect(fast.decode(ids)).toBe(text.normalize('NFC'));
    }
  });

  it('leaves to the general tokenizer what tiktoken would tokenize differently', () => {
    const model = tokenizerJSON['model'] as Record<string, unknown>;
    const merges = model['merges'] as unknown[];
    const swapped = [merges[1], merges[0], ...merges.slice(2)];
    expect(byteLevelBpe({ ...tokenizerJSON, model: { ...model, merges: swapped } })).toBeUndefined();
    expect(byteLevelBpe({ ...tokenizerJSON, normalizer: { type: 'NFKC' } })).toBeUndefined();
    const added = (tokenizerJSON['added_tokens'] as Record<string, unknown>[]).map((t, k) => (k === 0 ? { ...t, lstrip: true } : t));
    expect(byteLevelBpe({ ...tokenizerJSON, added_tokens: added })).toBeUndefined();
    expect(byteLevelBpe({ ...tokenizerJSON, model: { ...model, type: 'WordPiece' } })).toBeUndefined();
  });
});
