// ShareGPT turns as Atropos messages: raw (verbatim) and structured (content + tool_calls, one tool
// message per response), with the raw fallback for turns that cannot be split faithfully.
import { describe, expect, it } from 'vitest';
import { toAtroposMessages } from '@hermes-datagen/to-atropos/internal/messages.js';
import { gpt, human, rawGpt, system, tool } from '../util/trajectories.js';

const turns = [
  system(['terminal']),
  human('List the files'),
  gpt({
    think: "I'll run ls.",
    calls: [
      { name: 'terminal', arguments: { command: 'ls' } },
      { name: 'terminal', arguments: { command: 'pwd' } },
    ],
  }),
  tool({ name: 'terminal', content: { output: 'a.txt', exit_code: 0 }, id: 'call_1' }, { name: 'terminal', content: '/w', id: 'call_2' }),
  gpt({ think: '', text: 'There is one file: a.txt' }),
];

describe('raw', () => {
  it('maps roles and keeps every value verbatim', () => {
    const { messages, rawFallbacks } = toAtroposMessages(turns, 'raw');
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(messages.map((m) => m.content)).toEqual(turns.map((t) => t.value));
    expect(rawFallbacks).toBe(0);
  });
});

describe('structured', () => {
  it('splits tool calls and responses as hermes-agent stores them', () => {
    const { messages, rawFallbacks } = toAtroposMessages(turns, 'structured');
    expect(rawFallbacks).toBe(0);
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: "<think>\nI'll run ls.\n</think>",
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command": "ls"}' } },
        { id: 'call_2', type: 'function', function: { name: 'terminal', arguments: '{"command": "pwd"}' } },
      ],
    });
    expect(messages.slice(3, 5)).toEqual([
      { role: 'tool', content: '{"output": "a.txt", "exit_code": 0}', tool_call_id: 'call_1', name: 'terminal' },
      { role: 'tool', content: '/w', tool_call_id: 'call_2', name: 'terminal' },
    ]);
    expect(messages[5]).toEqual({ role: 'assistant', content: turns[4]?.value });
  });

  it('keeps a turn raw rather than lose or invent text', () => {
    const textAfterCall = rawGpt('<think>\na\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {}}\n</tool_call>\nand then more');
    const malformed = rawGpt('<think>\na\n</think>\n<tool_call>\nnot json\n</tool_call>');
    const strayToolText = {
      from: 'tool' as const,
      value: 'note\n<tool_response>\n{"tool_call_id": "x", "name": "terminal", "content": "y"}\n</tool_response>',
    };
    const { messages, rawFallbacks } = toAtroposMessages([system(), human(), textAfterCall, malformed, strayToolText], 'structured');
    expect(rawFallbacks).toBe(3);
    expect(messages.slice(2).map((m) => [m.role, m.content, m.tool_calls])).toEqual([
      ['assistant', textAfterCall.value, undefined],
      ['assistant', malformed.value, undefined],
      ['tool', strayToolText.value, undefined],
    ]);
  });

  it('names calls by position when the tool turn gives no ids', () => {
    const call = gpt({ think: 'x', calls: [{ name: 'terminal', arguments: {} }] });
    const { messages } = toAtroposMessages([human(), call, tool({ name: 'terminal', content: 'ok', id: '' })], 'structured');
    expect(messages[1]?.tool_calls?.[0]?.id).toBe('call_1_0');
  });
});
