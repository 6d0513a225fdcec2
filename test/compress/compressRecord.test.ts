// One conversation through the pipeline: upstream's planner vectors (pair integrity, net-savings
// guard), each reducer, each strategy, the min_tokens_after error, escaping, never growing, idempotence.
import { describe, expect, it } from 'vitest';
import { loadTokenCounter, parseGptValue, parseToolValue, type Turn } from '@hermes-datagen/core';
import { compressConversation, MIN_TOKENS_AFTER_MESSAGE, type CompressEnv } from '@hermes-datagen/compress/internal/compressRecord.js';
import { PLACEHOLDER_SUMMARY } from '@hermes-datagen/compress/internal/extract.js';
import type { CompressConfig } from '@hermes-datagen/compress/internal/config.js';
import type { Summarizer } from '@hermes-datagen/compress/internal/summarizer.js';
import { gpt, human, system, tool } from '../util/trajectories.js';
import { NEVER, quarterCounter, settings } from './helpers.js';

const counter = loadTokenCounter();
const pad = (n: number, seed = 'x'): string => seed.repeat(n);
const t = (from: Turn['from'], chars: number): Turn => ({ from, value: pad(chars) });

/** A spy summariser: records calls, answers with a fixed text. */
function spy(answer: string | null = '[CONTEXT SUMMARY]: did things.'): Summarizer & { calls: number; targets: number[] } {
  const s = {
    calls: 0,
    targets: [] as number[],
    summarize: async (_region: unknown, _start: number, _signal: AbortSignal, targetTokens: number) => {
      s.calls++;
      s.targets.push(targetTokens);
      return { summary: answer, calls: 1, errors: answer === null ? 1 : 0 };
    },
  };
  return s;
}

describe('upstream planner vectors (4-characters-a-token stub)', () => {
  it('tool-pair integrity: target = total − tt[4] + summary takes turn 4, snapped past its tool turn', async () => {
    const turns = [
      t('system', 400),
      t('human', 400),
      t('gpt', 400),
      t('tool', 400),
      t('gpt', 400),
      t('tool', 400),
      t('gpt', 400),
      t('tool', 400),
      t('gpt', 400),
      t('tool', 400),
    ];
    const config = settings({
      targetMaxTokens: 1000 - 100 + 20,
      summaryTargetTokens: 20,
      strategy: 'llm',
      reducers: [],
      addNotice: false,
      protectFinalAction: false,
    });
    const summarizer = spy();
    const out = await compressConversation(turns, { config, counter: quarterCounter, summarizer }, NEVER);
    expect(out.status).toBe('compressed');
    expect(out.metrics?.region).toEqual({ start: 4, end: 6 });
    expect(out.conversations?.map((turn) => turn.from)).toEqual(['system', 'human', 'gpt', 'tool', 'human', 'gpt', 'tool', 'gpt', 'tool']);
    expect(summarizer.calls).toBe(1);
  });

  it('a region no larger than the planned summary is summarised by both strategies alike: the llm is asked for half its tokens', async () => {
    const turns = [t('system', 2000), t('human', 2000), ...Array.from({ length: 8 }, (_, i) => t(i % 2 === 0 ? 'gpt' : 'tool', 100))];
    const base: Partial<CompressConfig> = {
      targetMaxTokens: 1150,
      summaryTargetTokens: 100,
      protectLast: 2,
      reducers: [],
      protectFinalAction: false,
      addNotice: false,
    };
    const summarizer = spy('[CONTEXT SUMMARY]: ok');
    const llm = await compressConversation(turns, { config: settings({ ...base, strategy: 'llm' }), counter: quarterCounter, summarizer }, NEVER);
    const extract = await compressConversation(turns, { config: settings({ ...base, strategy: 'key_decision_extract' }), counter: quarterCounter }, NEVER);
    expect(summarizer.calls).toBe(1);
    expect(llm).toMatchObject({ status: 'compressed', strategy: 'llm' });
    expect(extract).toMatchObject({ status: 'compressed', strategy: 'key_decision_extract' });
    expect(llm.metrics?.region).toEqual(extract.metrics?.region);
    const region = llm.metrics?.region as { start: number; end: number };
    const regionTokens = turns.slice(region.start, region.end).reduce((n, turn) => n + quarterCounter.count(turn.value), 0);
    expect(regionTokens).toBeLessThanOrEqual(100);
    expect(summarizer.targets).toEqual([Math.floor(regionTokens / 2)]);
  });

  it("an llm summary that saves nothing gives way to the deterministic one (llm_no_savings_fallback); a large region's target is the summary target", async () => {
    const turns = [t('system', 400), t('human', 400), ...Array.from({ length: 8 }, (_, i) => t(i % 2 === 0 ? 'gpt' : 'tool', 400))];
    const wordy = spy(`[CONTEXT SUMMARY]: ${'x'.repeat(4000)}`);
    const config = settings({ targetMaxTokens: 700, summaryTargetTokens: 20, protectLast: 2, strategy: 'llm', reducers: [], protectFinalAction: false });
    const out = await compressConversation(turns, { config, counter: quarterCounter, summarizer: wordy }, NEVER);
    expect(out).toMatchObject({ status: 'compressed', strategy: 'key_decision_extract', reason: 'llm_no_savings_fallback' });
    expect(wordy.targets).toEqual([20]);
  });
});

/** A long agent run: system, task, then steps of gpt (thought + call) and tool results. */
function run(steps: number, result: (i: number) => unknown = (i) => `output of step ${i}: ${pad(400, 'lorem ipsum ')}`): Turn[] {
  const turns: Turn[] = [system(), human('Fix the failing test in the repo.')];
  for (let i = 0; i < steps; i++) {
    turns.push(
      gpt({
        think: `Step ${i}: ${pad(60, 'I think about it. ')}`,
        text: `I will run step ${i}.`,
        calls: [{ name: 'terminal', arguments: { command: `make step${i}` } }],
      }),
    );
    turns.push(tool({ name: 'terminal', content: result(i), id: `call_${i}` }));
  }
  turns.push(gpt({ think: 'All done.', text: 'The test passes now.' }));
  return turns;
}

const env = (overrides: Parameters<typeof settings>[0] = {}): CompressEnv => ({ config: settings(overrides), counter });

describe('compressConversation', () => {
  it('passes a record under target through as skipped: untokenised under the byte bound, else counted', async () => {
    const turns = run(2);
    const out = await compressConversation(turns, env({ targetMaxTokens: 100_000 }), NEVER);
    expect(out).toMatchObject({ status: 'skipped', reason: 'under_target', tokensBefore: null });
    const n = (await compressConversation(turns, env({ targetMaxTokens: 1 }), NEVER)).tokensBefore as number;
    const counted = await compressConversation(turns, env({ targetMaxTokens: n }), NEVER);
    expect(counted).toMatchObject({ status: 'skipped', reason: 'under_target', tokensBefore: n, tokensAfter: n });
  });

  it('Stage A stops as soon as the record fits: repeated observations become references first', async () => {
    const turns = run(12, () => `same output ${pad(300, 'abc ')}`);
    const full = await compressConversation(turns, env({ targetMaxTokens: 1_000_000 }), NEVER);
    const n = (await compressConversation(turns, env({ targetMaxTokens: 10 }), NEVER)).tokensBefore as number;
    expect(full.status).toBe('skipped');
    const out = await compressConversation(turns, env({ targetMaxTokens: n - 500, reducers: ['repeated_observations'] }), NEVER);
    expect(out).toMatchObject({ status: 'compressed', reason: 'fits', strategy: 'prune' });
    const values = (out.conversations as Turn[]).map((turn) => turn.value);
    const stubs = values.filter((v) => v.includes('same result as turn'));
    expect(stubs.length).toBeGreaterThan(0);
    expect(stubs.length).toBeLessThan(10); // stopped once it fit, not every duplicate
    expect(parseToolValue(stubs[0] as string)).toHaveLength(1);
    expect(out.tokensAfter).toBeLessThanOrEqual(n - 500);
  });

  it('redundant_tool_outputs cuts long results to head and tail with a counted marker; error results are kept', async () => {
    const turns = run(6, (i) => (i === 3 ? { error: `boom ${pad(3000, 'E ')}` } : `line ${i}\n${pad(8000, 'data ')}`));
    const n = (await compressConversation(turns, env({ targetMaxTokens: 1 }), NEVER)).tokensBefore as number;
    // Window [4, 11): results of steps 1 and 2 (about 8,000 tokens each) and the error of step 3.
    const out = await compressConversation(turns, env({ targetMaxTokens: n - 14_000, reducers: ['redundant_tool_outputs'], toolOutputMaxTokens: 500 }), NEVER);
    expect(out).toMatchObject({ status: 'compressed', strategy: 'prune', reason: 'fits' });
    const conv = out.conversations as Turn[];
    const cut = conv.filter((turn) => turn.value.includes('characters omitted⟫'));
    expect(cut).toHaveLength(2);
    expect(counter.count(cut[0]?.value as string)).toBeLessThanOrEqual(500);
    expect(cut[0]?.value).toMatch(/⟪hermes-compress: [\d,]+ of [\d,]+ characters omitted⟫/);
    expect(parseToolValue(cut[0]?.value as string)[0]).toMatchObject({ tool_call_id: 'call_1', name: 'terminal' });
    expect(conv[9]).toEqual(turns[9]); // the error result, verbatim
  });

  it('intermediate_thoughts empties window think bodies and keeps the empty block', async () => {
    const turns = run(6, (i) => `ok ${i}`);
    const n = (await compressConversation(turns, env({ targetMaxTokens: 1 }), NEVER)).tokensBefore as number;
    const out = await compressConversation(turns, env({ targetMaxTokens: n - 100, reducers: ['intermediate_thoughts'] }), NEVER);
    expect(out.strategy).toBe('prune');
    const emptied = (out.conversations as Turn[]).filter((turn) => turn.from === 'gpt' && parseGptValue(turn.value).think[0] === '');
    expect(emptied.length).toBeGreaterThan(0);
    expect(emptied[0]?.value).toMatch(/^<think>\n<\/think>\nI will run step \d\.\n<tool_call>/);
  });

  it('key_decision_extract replaces the oldest turns with a human [CONTEXT SUMMARY] of calls, outcomes and decisions', async () => {
    const turns = run(10, (i) => (i === 1 ? { error: 'permission denied: /etc/shadow\nmore' } : `ok ${i} ${pad(600, 'data ')}`));
    const out = await compressConversation(turns, env({ targetMaxTokens: 2500, reducers: [] }), NEVER);
    expect(out).toMatchObject({ status: 'compressed', strategy: 'key_decision_extract' });
    const summary = (out.conversations as Turn[]).find((turn) => turn.value.startsWith('[CONTEXT SUMMARY]:')) as Turn;
    expect(summary.from).toBe('human');
    // Steps 0 is the protected head (first gpt and tool); the region starts at step 1.
    expect(summary.value).toContain('call terminal(command="make step1")');
    expect(summary.value).toContain('terminal → ERROR: permission denied: /etc/shadow');
    expect(summary.value).toContain('assistant: I will run step 1.');
    expect(counter.count(summary.value)).toBeLessThanOrEqual(750);
    expect(out.tokensAfter).toBeLessThan(out.tokensBefore as number);
  });

  it('placeholder writes upstream fallback text; the system turn gets the notice (or not, with --no-notice)', async () => {
    const turns = run(10);
    const out = await compressConversation(turns, env({ targetMaxTokens: 2500, reducers: [], strategy: 'placeholder' }), NEVER);
    expect(out.conversations?.some((turn) => turn.value === PLACEHOLDER_SUMMARY)).toBe(true);
    expect(out.conversations?.[0]?.value).toBe(`${turns[0]?.value}\n\nSome of your previous tool responses may be summarized to preserve context.`);
    const quiet = await compressConversation(turns, env({ targetMaxTokens: 2500, reducers: [], strategy: 'placeholder', addNotice: false }), NEVER);
    expect(quiet.conversations?.[0]).toEqual(turns[0]);
  });

  it('llm falls back to key_decision_extract when every attempt fails, never to a placeholder', async () => {
    const turns = run(10);
    const out = await compressConversation(turns, { ...env({ targetMaxTokens: 2500, reducers: [], strategy: 'llm' }), summarizer: spy(null) }, NEVER);
    expect(out).toMatchObject({ status: 'compressed', strategy: 'key_decision_extract', reason: 'llm_failed_fallback' });
    expect(out.metrics).toMatchObject({ apiCalls: 1, apiErrors: 1 });
  });

  it(`a result under min_tokens_after is the error "${MIN_TOKENS_AFTER_MESSAGE}" and nothing is changed`, async () => {
    const turns = run(6, (i) => (i === 2 ? pad(20_000, 'huge ') : `ok ${i}`));
    const n = (await compressConversation(turns, env({ targetMaxTokens: 1 }), NEVER)).tokensBefore as number;
    const out = await compressConversation(
      turns,
      env({ targetMaxTokens: n - 100, minTokensAfter: n - 200, reducers: ['redundant_tool_outputs'], toolOutputMaxTokens: 50 }),
      NEVER,
    );
    expect(out).toMatchObject({ status: 'error', reason: 'min_tokens_after', message: 'compressed trace too short, min_tokens_after not satisfied' });
    expect(out.conversations).toBeUndefined();
  });

  it('compresses a record above force_above_tokens even when its target would let it pass', async () => {
    const turns = run(10);
    const n = (await compressConversation(turns, env({ targetMaxTokens: 1 }), NEVER)).tokensBefore as number;
    const fits = await compressConversation(turns, env({ targetMaxTokens: 1_000_000, forceAboveTokens: n - 1000 }), NEVER);
    expect(fits).toMatchObject({ status: 'compressed', reason: 'fits', target: n - 1000 });
    expect(fits.tokensAfter).toBeLessThanOrEqual(n - 1000);
    // Below what the protected turns need: compressed as far as it goes, and the reason says so.
    const over = await compressConversation(turns, env({ targetMaxTokens: 1_000_000, forceAboveTokens: 1000 }), NEVER);
    expect(over).toMatchObject({ status: 'compressed', reason: 'over_limit_forced', target: 1000 });
    expect(over.metrics?.stillOverLimit).toBe(true);
  });

  it('escapes tags quoted into a summary so they cannot open or close a block', async () => {
    const turns = run(10);
    turns[4] = gpt({
      text: 'Close it with </think> then <tool_call> and </tool_response>.',
      calls: [{ name: 'terminal', arguments: { command: 'echo "</tool_call><tool_response>"' } }],
    });
    const out = await compressConversation(turns, env({ targetMaxTokens: 2500, reducers: [] }), NEVER);
    const summary = (out.conversations as Turn[]).find((turn) => turn.value.startsWith('[CONTEXT SUMMARY]:'))?.value as string;
    expect(summary).toContain('&lt;/think>');
    expect(summary).not.toMatch(/<\/?(think|tool_call|tool_response)>/);
  });

  it('is idempotent: compressing a compressed record that fits changes nothing', async () => {
    const turns = run(10);
    const config = env({ ratio: 0.6, minTokensAfter: 500, maxTokensAfter: 20_000 });
    const first = await compressConversation(turns, config, NEVER);
    expect(first).toMatchObject({ status: 'compressed', reason: 'fits' });
    const again = await compressConversation(first.conversations as Turn[], config, NEVER, first.tokensBefore as number);
    expect(again).toMatchObject({ status: 'skipped', reason: 'under_target' });
  });
});
