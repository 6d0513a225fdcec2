import { describe, expect, it } from 'vitest';
import type { Turn } from '@hermes-datagen/core';
import {
  dropPartial,
  maxToolFailureRate,
  maxTurns,
  minReasoningRatio,
  minTurns,
  requireCompleted,
  zeroReasoning,
} from '@hermes-datagen/filter/internal/rules.js';
import { TrajectoryView } from '@hermes-datagen/filter/internal/trajectoryView.js';
import { gpt, human, rawGpt, system, tool, trajectory } from '../util/trajectories.js';

const view = (conversations: Turn[], fields: Parameters<typeof trajectory>[0] = {}): TrajectoryView =>
  new TrajectoryView(trajectory({ ...fields, conversations }));

describe('zeroReasoning', () => {
  it.each<[string, Turn[]]>([
    ['a native think block', [system(), human(), gpt({ think: 'Plan.', text: 'Done.' })]],
    [
      'reasoning only in a later turn',
      [system(), human(), gpt({ calls: [{ name: 'terminal' }] }), tool({ name: 'terminal', content: 'ok' }), gpt({ think: 'It worked.', text: 'ok' })],
    ],
    ['a scratchpad block', [system(), human(), rawGpt('<think>\n</think>\n<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>Done.')]],
    ['nested think tags', [system(), human(), rawGpt('<think>outer <think>inner</think></think>Done.')]],
    ['a scratchpad converted to think (two blocks)', [system(), human(), rawGpt('<think>\n</think>\n<think>from the scratchpad</think>\nDone.')]],
  ])('keeps %s', (_name, conversations) => {
    expect(zeroReasoning(view(conversations))).toBeNull();
  });

  it.each<[string, Turn[], RegExp]>([
    ['no gpt turn', [system(), human()], /no gpt turn/],
    [
      'only the inserted empty <think>\\n</think>',
      [system(), human(), gpt({ text: 'Done.' }), gpt({ calls: [{ name: 'terminal' }] })],
      /none of the 2 gpt turns/,
    ],
    ['think only mentioned in prose', [system(), human(), rawGpt('I would wrap my reasoning in a <think> tag, but here: done.')], /none of the 1 gpt turns/],
    ['an empty scratchpad', [system(), human(), rawGpt('<REASONING_SCRATCHPAD>  </REASONING_SCRATCHPAD>Done.')], /none/],
    ['a whitespace-only think block', [system(), human(), rawGpt('<think>\n   \n</think>\nDone.')], /none/],
    ['reasoning only inside a human turn', [system(), human('<think>user text</think>'), gpt({ text: 'Done.' })], /none/],
  ])('drops %s', (_name, conversations, detail) => {
    expect(zeroReasoning(view(conversations))).toEqual({ reason: 'zero_reasoning', detail: expect.stringMatching(detail) as unknown });
  });
});

describe('minReasoningRatio', () => {
  const half = [system(), human(), gpt({ think: 'a', calls: [{ name: 'terminal' }] }), tool({ name: 'terminal', content: 'x' }), gpt({ text: 'done' })];

  it('keeps a record at the ratio and drops one below it', () => {
    expect(minReasoningRatio(view(half), 0.5)).toBeNull();
    expect(minReasoningRatio(view(half), 0.51)).toEqual({ reason: 'min_reasoning_ratio', detail: '1 of 2 gpt turns have reasoning (50%), below 51%' });
  });

  it('counts a record without gpt turns as a share of 0', () => {
    expect(minReasoningRatio(view([system(), human()]), 0)).toBeNull();
    expect(minReasoningRatio(view([system(), human()]), 0.1)?.reason).toBe('min_reasoning_ratio');
  });
});

describe('completion and length', () => {
  it('requireCompleted and dropPartial read the flags', () => {
    expect(requireCompleted(view([], { completed: true }))).toBeNull();
    expect(requireCompleted(view([], { completed: false }))).toEqual({ reason: 'not_completed', detail: '"completed" is false' });
    expect(dropPartial(view([], { partial: false }))).toBeNull();
    expect(dropPartial(view([], { partial: true }))).toEqual({ reason: 'partial', detail: '"partial" is true' });
  });

  it('counts gpt turns only', () => {
    const three = view([system(), human(), gpt({ think: 'a' }), human(), gpt({ think: 'b' }), tool({ name: 'terminal', content: 'x' }), gpt({ think: 'c' })]);
    expect(minTurns(three, 3)).toBeNull();
    expect(minTurns(three, 4)).toEqual({ reason: 'min_turns', detail: '3 gpt turns, fewer than 4' });
    expect(maxTurns(three, 3)).toBeNull();
    expect(maxTurns(three, 2)).toEqual({ reason: 'max_turns', detail: '3 gpt turns, more than 2' });
  });
});

describe('maxToolFailureRate (the success rule of docs/rules.md#tool-success)', () => {
  const withResults = (...contents: unknown[]): TrajectoryView =>
    view([
      system(),
      human(),
      gpt({ think: 'go', calls: contents.map(() => ({ name: 'terminal' })) }),
      tool(...contents.map((content) => ({ name: 'terminal', content }))),
      gpt({ think: 'done', text: 'ok' }),
    ]);

  it.each<[string, unknown, boolean]>([
    ['a plain text result', 'a.txt', true],
    ['text starting with "Error:"', 'Error: no such file', false],
    ['text starting with "error:" after spaces', '  error: bad', false],
    ['"Error command failed" (no colon: a success upstream)', 'Error command failed', true],
    ['"No error: fine" (no substring matching)', 'No error: fine', true],
    ['an empty text', '', false],
    ['a dict with a non-null error', { error: 'boom' }, false],
    ['a dict with error null', { error: null, output: 'x' }, true],
    ['a terminal wrapper with an error', { content: { error: 'denied' } }, false],
    ['success: false', { success: false }, false],
    ['a non-zero exit code (the command ran)', { output: '', exit_code: 1, error: null }, true],
    ['a JSON list', ['a', 'b'], true],
  ])('%s succeeds: %s', (_name, content, succeeds) => {
    const verdict = maxToolFailureRate(withResults(content), 0);
    expect(verdict === null).toBe(succeeds);
  });

  it('compares the failed share with the limit', () => {
    const mixed = withResults('ok', { error: 'x' }, 'ok', 'Error: y');
    expect(maxToolFailureRate(mixed, 0.5)).toBeNull();
    expect(maxToolFailureRate(mixed, 0.49)).toEqual({ reason: 'max_tool_failure_rate', detail: '2 of 4 tool results failed (50%), above 49%' });
  });

  it('gives a record without tool results a rate of 0', () => {
    expect(maxToolFailureRate(view([system(), human(), gpt({ think: 'a', text: 'b' })]), 0)).toBeNull();
  });
});
