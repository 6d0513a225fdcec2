import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  gptTurnHasReasoning,
  parsedGptHasReasoning,
  parseGptValue,
  toShareGpt,
  type AssistantMessage,
  type ChatMessage,
  type ToolDefinition,
  type Trajectory,
} from '@hermes-datagen/core';
import { assistantHasReasoning, conversationReasoningStats, reasoningStats } from '@hermes-datagen/core/internal/reasoning.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');
const example = JSON.parse(fixture('hermes-example-messages.json')) as { user_query: string; tools: ToolDefinition[]; messages: ChatMessage[] };
const record = JSON.parse(fixture('hermes-example-record.json')) as Trajectory;

const assistant = (fields: Partial<AssistantMessage>): AssistantMessage => ({ role: 'assistant', content: null, ...fields });

describe('assistantHasReasoning (internal messages)', () => {
  it.each<[string, Partial<AssistantMessage>, boolean]>([
    ['native reasoning', { reasoning: 'R', content: 'A' }, true],
    ['whitespace-only reasoning', { reasoning: '  \n', content: 'A' }, false],
    ['reasoning_content only', { reasoning_content: 'RC' }, true],
    ['reasoning_details only', { reasoning_details: [{ summary: 'S' }] }, true],
    ['scratchpad in content', { content: '<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>A' }, true],
    ['empty scratchpad', { content: '<REASONING_SCRATCHPAD> </REASONING_SCRATCHPAD>A' }, false],
    ['inline <think> in content (counted, unlike upstream B0)', { content: '<think>plan</think>A' }, true],
    ['inline <thinking> in content', { content: '<thinking>plan</thinking>A' }, true],
    ['<think> only mentioned in prose', { content: 'I put notes in a <think> tag.' }, false],
    ['no reasoning at all', { content: 'A' }, false],
    ['null content, no reasoning', {}, false],
    ['both native reasoning and a scratchpad', { reasoning: 'R', content: '<REASONING_SCRATCHPAD>p</REASONING_SCRATCHPAD>' }, true],
  ])('%s -> %s', (_name, fields, expected) => {
    expect(assistantHasReasoning(assistant(fields))).toBe(expected);
  });
});

describe('reasoningStats', () => {
  it('counts assistant turns only', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '<think>user text is not counted</think>' },
      assistant({ reasoning: 'R', tool_calls: [{ id: 'a', function: { name: 't', arguments: '{}' } }] }),
      { role: 'tool', content: '<think>x</think>', tool_call_id: 'a' },
      assistant({ content: 'no reasoning' }),
      assistant({ content: '<think>inline</think>done' }),
    ];
    expect(reasoningStats(messages)).toEqual({ total_assistant_turns: 3, turns_with_reasoning: 2, turns_without_reasoning: 1, has_any_reasoning: true });
  });

  it('has no reasoning when there is no assistant turn', () => {
    expect(reasoningStats([{ role: 'user', content: 'Q' }])).toEqual({
      total_assistant_turns: 0,
      turns_with_reasoning: 0,
      turns_without_reasoning: 0,
      has_any_reasoning: false,
    });
  });

  it('has no reasoning when every turn lacks it', () => {
    expect(reasoningStats([{ role: 'user', content: 'Q' }, assistant({ content: 'A' })]).has_any_reasoning).toBe(false);
  });
});

describe('gptTurnHasReasoning (ShareGPT values)', () => {
  it.each<[string, string, boolean]>([
    ['the inserted empty think block', '<think>\n</think>\nAnswer', false],
    ['a think block with text', '<think>\nPlan.\n</think>\nAnswer', true],
    ['a whitespace-only think block', '<think> \n </think>Answer', false],
    ['a scratchpad block with text', '<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>Answer', true],
    ['an empty scratchpad block', '<REASONING_SCRATCHPAD></REASONING_SCRATCHPAD>Answer', false],
    ['think only mentioned in prose', 'Use the <think> tag for notes.', false],
    ['an unclosed think', '<think>cut off', false],
    ['empty block then a real one (two think blocks)', '<think>\n</think>\n<think>p</think>A', true],
    ['nested think with text', '<think><think></think>outer</think>', true],
    ['a stray close tag', 'reasoning</think>Answer', false],
    ['no blocks', 'Answer', false],
  ])('%s -> %s', (_name, value, expected) => {
    expect(gptTurnHasReasoning(value)).toBe(expected);
    expect(parsedGptHasReasoning(parseGptValue(value))).toBe(expected);
  });
});

describe('conversationReasoningStats', () => {
  it('counts gpt turns of the worked example: two with reasoning, one without', () => {
    expect(conversationReasoningStats(record.conversations)).toEqual({
      total_assistant_turns: 3,
      turns_with_reasoning: 2,
      turns_without_reasoning: 1,
      has_any_reasoning: true,
    });
  });

  it('agrees with reasoningStats on the internal messages of the example', () => {
    expect(reasoningStats(example.messages)).toEqual(conversationReasoningStats(record.conversations));
  });

  it('agrees with reasoningStats through toShareGpt for each kind of reasoning', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Q' },
      assistant({ content: '<REASONING_SCRATCHPAD>p</REASONING_SCRATCHPAD>a' }),
      { role: 'user', content: 'more' },
      assistant({ reasoning: 'R', content: 'b' }),
      { role: 'user', content: 'more' },
      assistant({ content: 'c mentions <think> in prose' }),
      { role: 'user', content: 'more' },
      assistant({ content: '<think>inline</think>d' }),
    ];
    const stats = reasoningStats(messages);
    expect(stats).toEqual({ total_assistant_turns: 4, turns_with_reasoning: 3, turns_without_reasoning: 1, has_any_reasoning: true });
    expect(conversationReasoningStats(toShareGpt(messages, 'Q', []))).toEqual(stats);
  });

  it('has no reasoning without a gpt turn', () => {
    expect(
      conversationReasoningStats([
        { from: 'system', value: 's' },
        { from: 'human', value: 'q' },
      ]).has_any_reasoning,
    ).toBe(false);
  });
});
