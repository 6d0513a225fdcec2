import { describe, expect, it } from 'vitest';
import { offeredToolNames, parseGptValue, parseToolValue, type ParsedGptValue } from '@hermes-datagen/core';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';

describe('parseGptValue', () => {
  it.each<[string, string, Partial<ParsedGptValue>]>([
    [
      'upstream shape with reasoning, text and a call',
      '<think>\nNeed a file.\n</think>\nI\'ll create it.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "a"}}\n</tool_call>',
      {
        think: ['Need a file.'],
        scratchpad: [],
        text: "I'll create it.",
        toolCalls: [{ name: 'write_file', arguments: { path: 'a' }, raw: '{"name": "write_file", "arguments": {"path": "a"}}' }],
      },
    ],
    ['inserted empty think block', '<think>\n</think>\nHi.', { think: [''], text: 'Hi.', toolCalls: [] }],
    ['no blocks at all', 'Just text.', { think: [], scratchpad: [], text: 'Just text.', toolCalls: [] }],
    ['two think blocks (native reasoning and a converted scratchpad)', '<think>\nA\n</think>\n<think>B</think>\nok', { think: ['A', 'B'], text: 'ok' }],
    ['scratchpad block', '<REASONING_SCRATCHPAD>plan</REASONING_SCRATCHPAD>done', { think: [], scratchpad: ['plan'], text: 'done' }],
    ['think mentioned in prose', 'Wrap reasoning in a <think> tag.', { think: [], text: 'Wrap reasoning in a <think> tag.' }],
    ['nested think tags are one block', '<think>a <think>b</think> c</think>x', { think: ['a <think>b</think> c'], text: 'x' }],
    [
      'text between blocks',
      'a<tool_call>{"name": "t", "arguments": {}}</tool_call> b <tool_call>{"name": "u", "arguments": {}}</tool_call>c',
      {
        text: 'a b c',
        toolCalls: [
          { name: 't', arguments: {}, raw: '{"name": "t", "arguments": {}}' },
          { name: 'u', arguments: {}, raw: '{"name": "u", "arguments": {}}' },
        ],
      },
    ],
    ['tool_call inside think is not a call', '<think><tool_call>{"name": "t", "arguments": {}}</tool_call></think>', { toolCalls: [] }],
  ])('%s', (_name, value, expected) => {
    expect(parseGptValue(value)).toMatchObject(expected);
  });

  it.each<[string, string, { name: string | null; error: RegExp }]>([
    ['single-quoted pseudo-JSON', "{'name': 'terminal', 'arguments': {'command': 'ls'}}", { name: null, error: /not valid JSON/ }],
    ['truncated JSON', '{"name": "terminal", "argu', { name: null, error: /not valid JSON/ }],
    ['JSON that is not an object', '["terminal"]', { name: null, error: /not a JSON object/ }],
    ['no name', '{"arguments": {}}', { name: null, error: /no "name"/ }],
    ['name not a string', '{"name": 3, "arguments": {}}', { name: null, error: /no "name"/ }],
    ['empty name', '{"name": "", "arguments": {}}', { name: '', error: /no "name"/ }],
    ['no arguments', '{"name": "terminal"}', { name: 'terminal', error: /no "arguments"/ }],
    ['arguments not an object', '{"name": "terminal", "arguments": "ls"}', { name: 'terminal', error: /not a JSON object/ }],
  ])('malformed tool_call: %s', (_name, inner, expected) => {
    const [call] = parseGptValue(`<tool_call>\n${inner}\n</tool_call>`).toolCalls;
    expect(call?.name).toBe(expected.name);
    expect(call?.error).toMatch(expected.error);
    expect(call?.raw).toBe(inner);
  });

  it('reports an unclosed tool_call (a length stop) and takes the rest as its text', () => {
    const parsed = parseGptValue('<think>\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {"comm');
    expect(parsed.toolCalls).toEqual([
      { name: null, arguments: null, raw: '{"name": "terminal", "arguments": {"comm', error: expect.stringMatching(/not valid JSON/) },
    ]);
    expect(parsed.text).toBe('');
  });

  it('names an unclosed tool_call whose JSON is complete', () => {
    const [call] = parseGptValue('<tool_call>\n{"name": "terminal", "arguments": {}}').toolCalls;
    expect(call).toEqual({ name: 'terminal', arguments: {}, raw: '{"name": "terminal", "arguments": {}}', error: 'the <tool_call> block is never closed' });
  });
});

describe('parseToolValue', () => {
  it.each<[string, string, unknown]>([
    [
      'two responses joined by a newline',
      '<tool_response>\n{"tool_call_id": "c1", "name": "terminal", "content": {"output": "hi", "exit_code": 0, "error": null}}\n</tool_response>\n<tool_response>\n{"tool_call_id": "c2", "name": "read_file", "content": "text"}\n</tool_response>',
      [
        {
          tool_call_id: 'c1',
          name: 'terminal',
          content: { output: 'hi', exit_code: 0, error: null },
          raw: '{"tool_call_id": "c1", "name": "terminal", "content": {"output": "hi", "exit_code": 0, "error": null}}',
        },
        { tool_call_id: 'c2', name: 'read_file', content: 'text', raw: '{"tool_call_id": "c2", "name": "read_file", "content": "text"}' },
      ],
    ],
    ['no blocks', 'nothing here', []],
    [
      'not JSON',
      '<tool_response>oops</tool_response>',
      [{ tool_call_id: null, name: null, content: null, raw: 'oops', error: expect.stringMatching(/not valid JSON/) }],
    ],
    [
      'no name',
      '<tool_response>{"tool_call_id": "c", "content": 1}</tool_response>',
      [{ tool_call_id: 'c', name: null, content: 1, raw: '{"tool_call_id": "c", "content": 1}', error: 'the tool response has no "name" string' }],
    ],
    [
      'no content',
      '<tool_response>{"tool_call_id": "c", "name": "t"}</tool_response>',
      [{ tool_call_id: 'c', name: 't', content: null, raw: '{"tool_call_id": "c", "name": "t"}', error: 'the tool response has no "content"' }],
    ],
    [
      'unclosed block',
      '<tool_response>\n{"tool_call_id": "c", "name": "t", "content": "x"}',
      [
        {
          tool_call_id: 'c',
          name: 't',
          content: 'x',
          raw: '{"tool_call_id": "c", "name": "t", "content": "x"}',
          error: 'the <tool_response> block is never closed',
        },
      ],
    ],
  ])('%s', (_name, value, expected) => {
    expect(parseToolValue(value)).toEqual(expected);
  });
});

describe('offeredToolNames', () => {
  it("reads upstream's template, skipping the <tools> </tools> mentioned in its first sentence", () => {
    const value = hermesSystemPrompt([{ name: 'read_file', description: 'Read </tools> a file' }, { name: 'terminal' }]);
    expect(value.indexOf('<tools> </tools>')).toBeLessThan(value.indexOf('<tools>\n['));
    expect(offeredToolNames(value)).toEqual(['read_file', 'terminal']);
  });

  it('reads the OpenAI shape {"type": "function", "function": {"name"}} too', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: {} } }, { name: 'plain' }];
    expect(offeredToolNames(`Tools:\n<tools>\n${JSON.stringify(tools)}\n</tools>`)).toEqual(['get_weather', 'plain']);
  });

  it('gives an empty list when no tools are offered', () => {
    expect(offeredToolNames(hermesSystemPrompt([]))).toEqual([]);
  });

  it('skips entries without a name', () => {
    expect(offeredToolNames('<tools>[{"name": "a"}, {"description": "x"}, 3, {"name": 4}]</tools>')).toEqual(['a']);
  });

  it.each([
    ['no <tools> block', 'You are a helpful assistant.'],
    ['only the prose mention', 'Signatures go within <tools> </tools> XML tags.'],
    ['a list that is not JSON', "<tools>\n[{'name': 'a'}]\n</tools>"],
    ['a block that is never closed', '<tools>\n[{"name": "a"}]'],
  ])('returns null for %s', (_name, value) => {
    expect(offeredToolNames(value)).toBeNull();
  });
});
