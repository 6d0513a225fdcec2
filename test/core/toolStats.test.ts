import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  extractToolStats,
  normaliseToolStats,
  toShareGpt,
  toolCallSucceeded,
  toolErrorCounts,
  toolStatsFromConversations,
  type ChatMessage,
  type ToolDefinition,
  type Trajectory,
  type Turn,
} from '@hermes-datagen/core';
import { parsedJson } from '../util/parsedJson.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');
const example = JSON.parse(fixture('hermes-example-messages.json')) as { user_query: string; tools: ToolDefinition[]; messages: ChatMessage[] };
const record = JSON.parse(fixture('hermes-example-record.json')) as Trajectory;

describe('toolCallSucceeded', () => {
  it.each<[string, unknown, boolean]>([
    ['plain text', 'hello', true],
    ['"Error command failed" (no colon)', 'Error command failed', true],
    ['"[ERROR] x"', '[ERROR] x', true],
    ['"No error: x" (no substring matching)', 'No error: x', true],
    ['"error: x"', 'error: x', false],
    ['"  ERROR: x" (trimmed, any case)', '  ERROR: x', false],
    // The rule as written succeeds here, although upstream's notes call its pending-call filler text a failure.
    ['"Error executing tool: x" (no "error:" prefix)', 'Error executing tool: x', true],
    ['empty content', '', false],
    ['whitespace-only content (upstream: not empty)', '  ', true],
    ['null content', null, false],
    ['{"error": null}', '{"error": null}', true],
    ['{"error": "boom"}', '{"error": "boom"}', false],
    ['{"error": ""} (not None)', '{"error": ""}', false],
    ['{"success": false}', '{"success": false}', false],
    ['{"success": 0} (only false fails)', '{"success": 0}', true],
    ['{"success": true}', '{"success": true}', true],
    ['terminal wrapper {"content": {"error": "x"}}', '{"content": {"error": "x"}}', false],
    ['terminal wrapper with a null error', '{"content": {"error": null, "output": "ok"}}', true],
    ['non-zero exit_code', '{"output": "", "exit_code": 2, "error": null}', true],
    ['a JSON list', '[1, 2]', true],
    ['a JSON string saying error:', '"error: x"', true],
    ['a JSON number', '42', true],
    ['an already-parsed dict with an error', { error: 'x' }, false],
    ['already-parsed list content (multimodal parts)', [{ type: 'text', text: 'ok' }], true],
    ['truncated JSON falls back to the text rule', '{"output": "lots of text...\n\n[Truncated: tool response was 200000 chars]', true],
  ])('%s -> %s', (_name, content, expected) => {
    expect(toolCallSucceeded(content)).toBe(expected);
  });
});

const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });

describe('extractToolStats', () => {
  it('matches results to calls by id; unknown ids are ignored', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Q' },
      { role: 'assistant', content: '', tool_calls: [call('a', 'terminal'), call('b', 'read_file'), call('c', 'terminal')] },
      { role: 'tool', tool_call_id: 'b', content: '{"error": "no such file"}' },
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
      { role: 'tool', tool_call_id: 'zzz', content: 'error: lost' },
      { role: 'assistant', content: '', tool_calls: [call('d', 'terminal')] },
      { role: 'tool', tool_call_id: 'd', content: 'error: bad' },
    ];
    expect(extractToolStats(messages)).toEqual({
      terminal: { count: 3, success: 1, failure: 1 },
      read_file: { count: 1, success: 0, failure: 1 },
    });
  });

  it('skips unusable tool_calls entries', () => {
    const messages = parsedJson<ChatMessage[]>([{ role: 'assistant', content: '', tool_calls: [null, 'x', call('a', 't')] }]);
    expect(extractToolStats(messages)).toEqual({ t: { count: 1, success: 0, failure: 0 } });
  });

  it('gives {} with no calls', () => {
    expect(
      extractToolStats([
        { role: 'user', content: 'Q' },
        { role: 'assistant', content: 'A' },
      ]),
    ).toEqual({});
  });

  it('keeps tool names that collide with Object.prototype as plain data', () => {
    const stats = extractToolStats([{ role: 'assistant', content: '', tool_calls: [call('a', 'constructor'), call('b', '__proto__')] }]);
    expect(Object.keys(stats)).toEqual(['constructor', '__proto__']);
    expect(stats['constructor']).toEqual({ count: 1, success: 0, failure: 0 });
  });

  it("gives the worked example's counts", () => {
    expect(extractToolStats(example.messages)).toEqual({
      write_file: { count: 1, success: 1, failure: 0 },
      terminal: { count: 1, success: 1, failure: 0 },
      read_file: { count: 1, success: 1, failure: 0 },
    });
  });
});

describe('toolStatsFromConversations', () => {
  const callBlock = (name: string): string => `<tool_call>\n{"name": "${name}", "arguments": {}}\n</tool_call>`;
  const response = (name: string, content: string): string =>
    `<tool_response>\n{"tool_call_id": "", "name": "${name}", "content": ${content}}\n</tool_response>`;

  it('agrees with extractToolStats on the worked example', () => {
    expect(toolStatsFromConversations(record.conversations)).toEqual(extractToolStats(example.messages));
  });

  it('agrees with extractToolStats through toShareGpt, when results follow their calls in order', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Q' },
      { role: 'assistant', content: '', tool_calls: [call('a', 'terminal'), call('b', 'read_file')] },
      { role: 'tool', tool_call_id: 'a', content: '{"content": {"error": "x"}}' },
      { role: 'tool', tool_call_id: 'b', content: 'Error command failed' },
      { role: 'assistant', content: '', tool_calls: [call('c', 'terminal')] },
      { role: 'tool', tool_call_id: 'c', content: '' },
      { role: 'assistant', content: 'done' },
    ];
    expect(toolStatsFromConversations(toShareGpt(messages, 'Q', []))).toEqual(extractToolStats(messages));
  });

  it.each<[string, Turn[], Record<string, unknown>]>([
    [
      'no gpt turn',
      [
        { from: 'system', value: 's' },
        { from: 'human', value: 'q' },
      ],
      {},
    ],
    [
      'pairs results by position',
      [
        { from: 'gpt', value: `${callBlock('terminal')}\n${callBlock('read_file')}` },
        { from: 'tool', value: `${response('read_file', '"error: x"')}\n${response('terminal', '{"success": true}')}` },
      ],
      { terminal: { count: 1, success: 0, failure: 1 }, read_file: { count: 1, success: 1, failure: 0 } },
    ],
    [
      'a call without a following tool turn has no result',
      [
        { from: 'gpt', value: callBlock('terminal') },
        { from: 'gpt', value: 'done' },
      ],
      { terminal: { count: 1, success: 0, failure: 0 } },
    ],
    [
      'results beyond the calls are ignored',
      [
        { from: 'gpt', value: callBlock('terminal') },
        { from: 'tool', value: `${response('terminal', '"ok"')}\n${response('unknown', '"error: x"')}` },
      ],
      { terminal: { count: 1, success: 1, failure: 0 } },
    ],
    [
      'a malformed call keeps its position but is not counted',
      [
        { from: 'gpt', value: `<tool_call>\n{'name': 'terminal'}\n</tool_call>\n${callBlock('read_file')}` },
        { from: 'tool', value: `${response('unknown', '"ok"')}\n${response('read_file', '{"error": "x"}')}` },
      ],
      { read_file: { count: 1, success: 0, failure: 1 } },
    ],
    [
      'an unreadable response block is a failure',
      [
        { from: 'gpt', value: callBlock('terminal') },
        { from: 'tool', value: '<tool_response>\nnot json\n</tool_response>' },
      ],
      { terminal: { count: 1, success: 0, failure: 1 } },
    ],
    ['a tool_call mentioned inside think is not a call', [{ from: 'gpt', value: `<think>${callBlock('terminal')}</think>answer` }], {}],
  ])('%s', (_name, turns, expected) => {
    expect(toolStatsFromConversations(turns)).toEqual(expected);
  });
});

describe('normaliseToolStats and toolErrorCounts', () => {
  const registry = { names: ['web_search', 'terminal', 'read_file'] };
  const stats = { terminal: { count: 2, success: 1, failure: 1 }, web_search_v2: { count: 1, success: 0, failure: 1 } };

  it('lists every registry name with zeros plus extra names, keys sorted', () => {
    const normalised = normaliseToolStats(stats, registry);
    expect(Object.keys(normalised)).toEqual(['read_file', 'terminal', 'web_search', 'web_search_v2']);
    expect(normalised).toEqual({
      read_file: { count: 0, success: 0, failure: 0 },
      terminal: { count: 2, success: 1, failure: 1 },
      web_search: { count: 0, success: 0, failure: 0 },
      web_search_v2: { count: 1, success: 0, failure: 1 },
    });
  });

  it('keeps the keys of each record to the registry plus its own extra names, however many records came before', () => {
    expect(Object.keys(normaliseToolStats({ terminal: { count: 1, success: 1, failure: 0 } }, registry))).toEqual(['read_file', 'terminal', 'web_search']);
    expect(Object.keys(normaliseToolStats(stats, registry))).toEqual(['read_file', 'terminal', 'web_search', 'web_search_v2']);
    expect(Object.keys(toolErrorCounts({}, registry))).toEqual(['read_file', 'terminal', 'web_search']);
  });

  it('copies the counts rather than sharing them', () => {
    const normalised = normaliseToolStats(stats, registry);
    expect(normalised['terminal']).not.toBe(stats.terminal);
  });

  it('gives failure counts over the same sorted keys', () => {
    const counts = toolErrorCounts(stats, registry);
    expect(Object.keys(counts)).toEqual(['read_file', 'terminal', 'web_search', 'web_search_v2']);
    expect(counts).toEqual({ read_file: 0, terminal: 1, web_search: 0, web_search_v2: 1 });
  });

  it('does not read names from Object.prototype', () => {
    expect(normaliseToolStats({}, { names: ['constructor'] })).toEqual({ constructor: { count: 0, success: 0, failure: 0 } });
    expect(toolErrorCounts({}, { names: ['toString'] })).toEqual({ toString: 0 });
  });

  it('keeps a tool named __proto__ as a key, and its zeros read-only (one object shared by the tools not called)', () => {
    const normalised = normaliseToolStats(JSON.parse('{"__proto__": {"count": 1, "success": 1, "failure": 0}}'), { names: ['a', 'b'] });
    expect(Object.getPrototypeOf(normalised)).toBe(Object.prototype);
    expect(JSON.stringify(normalised)).toBe(
      '{"__proto__":{"count":1,"success":1,"failure":0},"a":{"count":0,"success":0,"failure":0},"b":{"count":0,"success":0,"failure":0}}',
    );
    expect(JSON.stringify(toolErrorCounts(JSON.parse('{"__proto__": {"count": 1, "success": 0, "failure": 1}}'), { names: ['a'] }))).toBe(
      '{"__proto__":1,"a":0}',
    );
    expect(() => {
      normalised['a']!.count += 1;
    }).toThrow(TypeError);
  });

  it("reproduces the worked example's tool_stats and tool_error_counts over its 45-tool registry", () => {
    const b0Registry = { names: Object.keys(record.tool_stats) };
    const stats = extractToolStats(example.messages);
    expect(normaliseToolStats(stats, b0Registry)).toEqual(record.tool_stats);
    expect(toolErrorCounts(stats, b0Registry)).toEqual(record.tool_error_counts);
  });
});
