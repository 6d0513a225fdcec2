import { describe, expect, it } from 'vitest';
import type { Turn } from '@hermes-datagen/core';
import { emptyAction, repeatedThought, toolErrorStreak } from '@hermes-datagen/filter/internal/traceRules.js';
import { TrajectoryView } from '@hermes-datagen/filter/internal/trajectoryView.js';
import { gpt, human, rawGpt, system, tool, trajectory } from '../util/trajectories.js';

const view = (...turns: Turn[]): TrajectoryView => new TrajectoryView(trajectory({ conversations: [system(), human(), ...turns] }));
const step = (think: string): Turn[] => [gpt({ think, calls: [{ name: 'terminal' }] }), tool({ name: 'terminal', content: 'ok' })];

describe('repeatedThought', () => {
  it('drops the same thought twice in a row, naming both turns', () => {
    expect(repeatedThought(view(...step('Check the logs.'), ...step('Check the logs.')), 1)).toEqual({
      reason: 'repeated_thought',
      detail: 'conversations[4] repeats the thought of conversations[2]: "Check the logs."',
    });
  });

  it('compares with the window of earlier gpt turns only', () => {
    const turns = [...step('A'), ...step('B'), ...step('A')];
    expect(repeatedThought(view(...turns), 1)).toBeNull();
    expect(repeatedThought(view(...turns), 2)?.detail).toMatch(/^conversations\[6\] repeats the thought of conversations\[2\]/);
  });

  it('ignores empty thoughts (the inserted empty <think>)', () => {
    expect(repeatedThought(view(gpt({ calls: [{ name: 'terminal' }] }), tool({ name: 'terminal', content: 'x' }), gpt({ text: 'done' })), 3)).toBeNull();
  });

  it('compares trimmed text, and counts a scratchpad as thought', () => {
    expect(
      repeatedThought(view(rawGpt('<think>\n plan \n</think>\nA'), rawGpt('<think>\n</think>\n<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>B')), 1)?.reason,
    ).toBe('repeated_thought');
  });

  it('keeps different thoughts', () => {
    expect(repeatedThought(view(...step('one'), ...step('two'), gpt({ think: 'three', text: 'ok' })), 5)).toBeNull();
  });
});

describe('emptyAction', () => {
  it.each<[string, Turn]>([
    ['text', gpt({ think: 'x', text: 'Here it is.' })],
    ['a tool call', gpt({ calls: [{ name: 'terminal' }] })],
    ['a malformed tool call (an attempted action)', gpt({ calls: ['{not json'] })],
  ])('keeps a gpt turn with %s', (_name, turn) => {
    expect(emptyAction(view(turn))).toBeNull();
  });

  it.each<[string, Turn]>([
    ['only a think block', gpt({ think: 'I should do something.' })],
    ['only the inserted empty think block', rawGpt('<think>\n</think>')],
    ['an empty value', rawGpt('')],
  ])('drops a gpt turn with %s', (_name, turn) => {
    expect(emptyAction(view(gpt({ think: 'a', text: 'first' }), human('more'), turn))).toEqual({
      reason: 'empty_action',
      detail: 'conversations[4] has neither text nor a tool call',
    });
  });
});

describe('toolErrorStreak (the success rule of docs/rules.md#tool-success)', () => {
  const results = (...contents: unknown[]): Turn[] =>
    contents.flatMap((content) => [gpt({ think: 'go', calls: [{ name: 'terminal' }] }), tool({ name: 'terminal', content })]);

  it('drops N failing results in a row across tool turns', () => {
    expect(toolErrorStreak(view(...results({ error: 'a' }, 'Error: b', { success: false })), 3)).toEqual({
      reason: 'tool_error_streak',
      detail: '3 failing tool results in a row, the last in conversations[7] (terminal)',
    });
  });

  it('lets a success end a run', () => {
    expect(toolErrorStreak(view(...results({ error: 'a' }, { error: 'b' }, 'fine', { error: 'c' }, { error: 'd' })), 3)).toBeNull();
  });

  it('counts results inside one tool turn in order', () => {
    const turn = tool({ name: 'terminal', content: { error: 'a' } }, { name: 'read_file', content: '' });
    expect(toolErrorStreak(view(gpt({ think: 'x', calls: [{ name: 'terminal' }, { name: 'read_file' }] }), turn), 2)?.detail).toMatch(
      /the last in conversations\[3\] \(read_file\)/,
    );
  });

  it('judges text by its "error:" prefix only, and a non-zero exit code as a success', () => {
    expect(toolErrorStreak(view(...results('Error command failed', { output: '', exit_code: 2, error: null })), 1)).toBeNull();
  });

  it('counts a <tool_response> that cannot be read as a failure', () => {
    const broken: Turn = { from: 'tool', value: '<tool_response>\nnot json\n</tool_response>' };
    expect(toolErrorStreak(view(gpt({ think: 'x', calls: [{ name: 'terminal' }] }), broken), 1)?.detail).toMatch(/\(unnamed\)/);
  });
});
