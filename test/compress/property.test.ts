// Properties over thousands of generated trajectories (seeded, so a failure reproduces): the output
// validates against the trajectory schema, every tool call keeps its result, protected turns are byte
// for byte the input's, the token count never grows and equals what the record says, and a compressed
// record is at or under its target unless its reason says why. The same with adversarial text: think
// bodies, tool arguments and results quoting </think>, <tool_call> and </tool_response>.
import { describe, expect, it } from 'vitest';
import { checkSchema, createRng, loadTokenCounter, parseGptValue, parseToolValue, pythonJsonDumps, type Turn } from '@hermes-datagen/core';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';
import { compressConversation } from '@hermes-datagen/compress/internal/compressRecord.js';
import { REDUCERS, type CompressConfig } from '@hermes-datagen/compress/internal/config.js';
import { outputRecord } from '@hermes-datagen/compress';
import { compressibleWindow } from '@hermes-datagen/compress/internal/window.js';
import { trajectory } from '../util/trajectories.js';
import { NEVER, quarterCounter, settings } from './helpers.js';

// The properties hold for any counter; tiktoken's (checked against tiktoken in tokenizer.test.ts) runs
// on the adversarial half, upstream's 4-characters stub on the rest, which keeps this test quick.
const tiktoken = loadTokenCounter();
const WORDS = [
  'the',
  'build',
  'fails',
  'in',
  'module',
  'cache',
  'retry',
  'path',
  'src/main.ts',
  'Error:',
  '42',
  'ok',
  'npm',
  'test',
  'passes',
  'file',
  'line',
  'x',
  '{"a": 1}',
  '\n',
  'é',
  '漢字',
];
const HOSTILE = ['</think>', '<think>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'];

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, max: number): number => Math.floor(rng() * (max + 1));

function text(rng: Rng, words: number, hostile: boolean): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(hostile && rng() < 0.08 ? pick(rng, HOSTILE) : pick(rng, WORDS));
  return out.join(' ');
}

function generate(rng: Rng, hostile: boolean): Turn[] {
  const turns: Turn[] = [
    { from: 'system', value: hermesSystemPrompt([{ name: 'terminal' }, { name: 'read_file' }]) },
    { from: 'human', value: text(rng, 5 + int(rng, 30), hostile) },
  ];
  const results: unknown[] = [];
  for (let step = int(rng, 12); step > 0; step--) {
    if (rng() < 0.1) turns.push({ from: 'human', value: text(rng, 1 + int(rng, 20), hostile) });
    const calls = rng() < 0.15 ? 0 : 1 + int(rng, 2);
    let value = `<think>\n${rng() < 0.2 ? '' : text(rng, int(rng, 30), hostile)}\n</think>\n`;
    if (rng() < 0.5) value += `${text(rng, 1 + int(rng, 15), hostile)}. Then more.\n`;
    for (let c = 0; c < calls; c++)
      value += `<tool_call>\n${pythonJsonDumps({ name: pick(rng, ['terminal', 'read_file']), arguments: { command: text(rng, 1 + int(rng, 6), hostile) } })}\n</tool_call>\n`;
    turns.push({ from: 'gpt', value: value.trim() });
    if (calls === 0) continue;
    const blocks: string[] = [];
    for (let c = 0; c < calls; c++) {
      const roll = rng();
      const content =
        roll < 0.15 && results.length > 0
          ? pick(rng, results)
          : roll < 0.25
            ? { error: text(rng, 1 + int(rng, 10), hostile) }
            : text(rng, int(rng, rng() < 0.05 ? 400 : 40), hostile);
      results.push(content);
      blocks.push(`<tool_response>\n${pythonJsonDumps({ tool_call_id: `call_${turns.length}_${c}`, name: 'terminal', content })}\n</tool_response>`);
    }
    turns.push({ from: 'tool', value: blocks.join('\n') });
  }
  if (rng() < 0.7) turns.push({ from: 'gpt', value: `<think>\n${text(rng, int(rng, 20), hostile)}\n</think>\nDone.` });
  return turns;
}

function randomConfig(rng: Rng, tokens: number): CompressConfig {
  const ratioMode = rng() < 0.4;
  return settings({
    targetMaxTokens: 20 + int(rng, Math.max(tokens, 100)),
    summaryTargetTokens: 20 + int(rng, 400),
    ...(ratioMode
      ? { ratio: 0.05 + rng() * 0.5, minTokensAfter: rng() < 0.5 ? int(rng, 800) : undefined, maxTokensAfter: rng() < 0.5 ? 100 + int(rng, 3000) : undefined }
      : {}),
    ...(rng() < 0.2 ? { forceAboveTokens: int(rng, tokens) } : {}),
    ...(!ratioMode && rng() < 0.2 ? { minTokensAfter: int(rng, tokens) } : {}),
    protectLast: int(rng, 6),
    protectFinalAction: rng() < 0.8,
    reducers: REDUCERS.filter(() => rng() < 0.6),
    dedupWindow: 1 + int(rng, 6),
    toolOutputMaxTokens: 10 + int(rng, 400),
    strategy: rng() < 0.85 ? 'key_decision_extract' : 'placeholder',
    addNotice: rng() < 0.8,
  });
}

interface Blocks {
  think: number;
  calls: number;
  responses: number;
}

function blocks(turn: Turn): Blocks {
  if (turn.from === 'gpt') {
    const parsed = parseGptValue(turn.value);
    return { think: parsed.think.length, calls: parsed.toolCalls.length, responses: 0 };
  }
  return { think: 0, calls: 0, responses: turn.from === 'tool' ? parseToolValue(turn.value).length : 0 };
}

async function check(seed: number, hostile: boolean): Promise<void> {
  const counter = hostile ? tiktoken : quarterCounter;
  const rng = createRng(seed);
  const turns = generate(rng, hostile);
  const tokens = turns.reduce((sum, turn) => sum + counter.count(turn.value), 0);
  const config = randomConfig(rng, tokens);
  const outcome = await compressConversation(turns, { config, counter }, NEVER);
  const where = `seed ${seed}: ${outcome.status}/${outcome.reason}`;
  const record = checkSchema('trajectory', outputRecord({ ...trajectory({ conversations: turns }) }, outcome, '0123456789abcdef', true));
  if ('problem' in record) throw new Error(`${where}: the output ${record.problem}`);
  const out = record.value.conversations;
  if (outcome.status !== 'compressed') {
    expect(out, where).toBe(turns);
    return;
  }
  // Never grows; the count it reports is the output's.
  const after = out.reduce((sum, turn) => sum + counter.count(turn.value), 0);
  expect(after, where).toBe(outcome.tokensAfter);
  expect(after, where).toBeLessThan(tokens);
  if (after > (outcome.target as number)) expect(['over_limit', 'over_limit_forced', 'llm_failed_fallback'], where).toContain(outcome.reason);
  // Protected turns byte for byte (the system turn may only gain the notice).
  const window = compressibleWindow(turns, config);
  for (let i = 0; i < window.start; i++) {
    const expected = turns[i] as Turn;
    const got = out[i] as Turn;
    if (expected.from === 'system' && config.addNotice) expect(got.value, where).toBe(expected.value + config.noticeText);
    else expect(got, where).toEqual(expected);
  }
  const tail = turns.length - window.end;
  expect(out.slice(out.length - tail), where).toEqual(turns.slice(window.end));
  // Pairs: every tool turn follows a gpt turn, and each kept turn parses into the blocks it had.
  const region = outcome.metrics?.region;
  out.forEach((turn, i) => {
    if (turn.from === 'tool') expect(out[i - 1]?.from, `${where} turn ${i}`).toBe('gpt');
    if (region && i === region.start) {
      expect(turn.value.startsWith('[CONTEXT SUMMARY]:'), where).toBe(true);
      expect(turn.value, where).not.toMatch(/<\/?(think|tool_call|tool_response)>/);
      return;
    }
    const source = region && i > region.start ? i - 1 + (region.end - region.start) : i;
    expect(blocks(turn), `${where} turn ${i}`).toEqual(blocks(turns[source] as Turn));
  });
}

describe('properties of hermes-compress', () => {
  // About 2 s each on an idle machine; the timeouts are for a loaded one.
  it('hold over 1,200 generated trajectories', async () => {
    for (let seed = 1; seed <= 1200; seed++) await check(seed, false);
  });

  it('hold with adversarial text quoting </think>, <tool_call> and </tool_response> (500 trajectories)', async () => {
    for (let seed = 100_001; seed <= 100_500; seed++) await check(seed, true);
  });
});
