import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pythonJsonDumps, toShareGpt, type ChatMessage, type ToolDefinition, type Trajectory, type Turn } from '@hermes-datagen/core';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';
import { parsedJson } from '../util/parsedJson.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');
const example = JSON.parse(fixture('hermes-example-messages.json')) as { user_query: string; tools: ToolDefinition[]; messages: ChatMessage[] };
const recordLine = fixture('hermes-example-record.json').trimEnd();
const record = JSON.parse(recordLine) as Trajectory;

describe('toShareGpt on a worked example, written by hand as the upstream converter writes it', () => {
  const turns = toShareGpt(example.messages, example.user_query, example.tools);

  it('gives every conversations value byte for byte', () => {
    expect(turns.map((t) => t.from)).toEqual(record.conversations.map((t) => t.from));
    expect(turns.map((t) => t.value)).toEqual(record.conversations.map((t) => t.value));
  });

  it('writes the conversations as upstream writes them on the record line', () => {
    expect(recordLine).toContain(`"conversations": ${pythonJsonDumps(turns)}, "metadata"`);
  });

  it('writes the whole record line back unchanged', () => {
    expect(pythonJsonDumps(record)).toBe(recordLine);
  });
});

describe('hermesSystemPrompt', () => {
  it('lists no tools as []', () => {
    expect(hermesSystemPrompt([])).toContain('<tools>\n[]\n</tools>');
  });

  it('fills a missing description with "" and missing parameters with {}, and adds "required": null', () => {
    expect(hermesSystemPrompt([{ name: 'clarify' }])).toContain(
      '<tools>\n[{"name": "clarify", "description": "", "parameters": {}, "required": null}]\n</tools>',
    );
  });

  it("renders each list for itself when lists are kept (a list passed again gives its own text, never another's)", () => {
    const one = [{ name: 'one' }];
    const two = [{ name: 'two' }];
    expect(hermesSystemPrompt(one)).toContain('"one"');
    expect(hermesSystemPrompt(two)).toContain('"two"');
    expect(hermesSystemPrompt(one)).toBe(hermesSystemPrompt([{ name: 'one' }]));
    expect(hermesSystemPrompt(two)).not.toContain('"one"');
  });

  it('keeps the tools in the order given', () => {
    const prompt = hermesSystemPrompt([{ name: 'b' }, { name: 'a' }]);
    expect(prompt.indexOf('"b"')).toBeLessThan(prompt.indexOf('"a"'));
  });

  it('is the system turn of the example', () => {
    expect(hermesSystemPrompt(example.tools)).toBe(record.conversations[0]?.value);
  });
});

const user: ChatMessage = { role: 'user', content: 'Q' };
const calls = (...names: string[]): ChatMessage => ({
  role: 'assistant',
  content: '',
  tool_calls: names.map((name, k) => ({ id: `c${k}`, type: 'function' as const, function: { name, arguments: '{}' } })),
});
const result = (content: unknown, id = 'x'): ChatMessage => ({ role: 'tool', content, tool_call_id: id });
const answer = (text: string): ChatMessage => ({ role: 'assistant', content: text });
const response = (id: string, name: string, content: string): string =>
  `<tool_response>\n{"tool_call_id": "${id}", "name": "${name}", "content": ${content}}\n</tool_response>`;
const callBlock = (name: string): string => `<tool_call>\n{"name": "${name}", "arguments": {}}\n</tool_call>`;

describe('toShareGpt walk', () => {
  it.each<[string, ChatMessage[], Turn[]]>([
    ['only the prompt: system and human turns only', [user], []],
    ['a plain answer', [user, answer('A')], [{ from: 'gpt', value: '<think>\n</think>\nA' }]],
    [
      'results named by position, not by tool_call_id',
      [user, calls('terminal', 'read_file'), result('1', 'c1'), result('2', 'c0')],
      [
        { from: 'gpt', value: `<think>\n</think>\n${callBlock('terminal')}\n${callBlock('read_file')}` },
        { from: 'tool', value: `${response('c1', 'terminal', '"1"')}\n${response('c0', 'read_file', '"2"')}` },
      ],
    ],
    [
      'more results than calls: "unknown"',
      [user, calls('terminal'), result('a', 'c0'), result('b', 'zz')],
      [
        { from: 'gpt', value: `<think>\n</think>\n${callBlock('terminal')}` },
        { from: 'tool', value: `${response('c0', 'terminal', '"a"')}\n${response('zz', 'unknown', '"b"')}` },
      ],
    ],
    [
      'calls without results: no tool turn',
      [user, calls('terminal'), answer('A')],
      [
        { from: 'gpt', value: `<think>\n</think>\n${callBlock('terminal')}` },
        { from: 'gpt', value: '<think>\n</think>\nA' },
      ],
    ],
    [
      'orphan tool messages and system messages are dropped',
      [user, { role: 'system', content: 'S' }, result('lost'), answer('A'), result('lost too')],
      [{ from: 'gpt', value: '<think>\n</think>\nA' }],
    ],
    [
      'later user messages become human turns',
      [user, answer('A'), { role: 'user', content: 'More?' }, answer('B')],
      [
        { from: 'gpt', value: '<think>\n</think>\nA' },
        { from: 'human', value: 'More?' },
        { from: 'gpt', value: '<think>\n</think>\nB' },
      ],
    ],
    ['messages[0] is skipped whatever it is', [answer('skipped'), answer('A')], [{ from: 'gpt', value: '<think>\n</think>\nA' }]],
    [
      'tool messages after an assistant whose tool_calls are all unusable are orphans',
      [user, parsedJson<ChatMessage>({ role: 'assistant', content: 'A', tool_calls: [null] }), result('lost')],
      [{ from: 'gpt', value: '<think>\n</think>\nA' }],
    ],
  ])('%s', (_name, messages, expected) => {
    expect(toShareGpt(messages, 'Q', []).slice(2)).toEqual(expected);
  });

  it('gives the raw prompt as the human turn, not messages[0]', () => {
    expect(toShareGpt([{ role: 'user', content: 'trimmed' }], '  raw prompt \n', [])[1]).toEqual({ from: 'human', value: '  raw prompt \n' });
  });

  it.each<[string, unknown, string]>([
    ['a JSON object string is embedded as JSON', '{"output": "hi", "exit_code": 0}', '{"output": "hi", "exit_code": 0}'],
    ['a JSON array string is embedded as JSON', '[1, 2]', '[1, 2]'],
    ['leading whitespace before JSON is allowed', '  \n{"a": 1}', '{"a": 1}'],
    ['JSON-looking but invalid stays a string', '{"a": ', '"{\\"a\\": "'],
    ['a number string is not JSON-looking', '42', '"42"'],
    ['plain text stays a string', 'Error: boom', '"Error: boom"'],
    ['non-ASCII written raw', 'héllo …', '"héllo …"'],
    ['an already-parsed object is embedded as is', { ok: true }, '{"ok": true}'],
    ['missing content is null', undefined, 'null'],
    [
      'numbers as received: big ints, float spelling, -0.0, NaN (as Python writes them)',
      '{"id": 12345678901234567890, "ratio": 1.0, "z": -0.0, "big": 1E400, "n": NaN, "small": 1.50}',
      '{"id": 12345678901234567890, "ratio": 1.0, "z": -0.0, "big": Infinity, "n": NaN, "small": 1.5}',
    ],
  ])('tool content: %s', (_name, content, expected) => {
    const turns = toShareGpt([user, calls('t'), result(content, 'c0')], 'Q', []);
    expect(turns[3]).toEqual({ from: 'tool', value: response('c0', 't', expected) });
  });

  it('writes "" for a missing tool_call_id', () => {
    const turns = toShareGpt([user, calls('t'), { role: 'tool', content: 'x' }], 'Q', []);
    expect(turns[3]?.value).toBe(response('', 't', '"x"'));
  });
});
