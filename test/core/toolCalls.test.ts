import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatToolCall } from '@hermes-datagen/core';
import { toolCallArguments, validToolCalls } from '@hermes-datagen/core/internal/toolCalls.js';
import { parsedJson } from '../util/parsedJson.js';

const call = (name: string, args: ChatToolCall['function']['arguments']): ChatToolCall => ({
  id: `id_${name}`,
  type: 'function',
  function: { name, arguments: args },
});

describe('validToolCalls', () => {
  it('keeps dict entries with a function name and skips the rest, in order', () => {
    const good = [call('a', '{}'), call('b', '{}')];
    const msg = parsedJson<AssistantMessage>({
      role: 'assistant',
      content: '',
      tool_calls: [null, good[0], 'x', { id: 'n' }, { id: 'f', function: { arguments: '{}' } }, good[1]],
    });
    expect(validToolCalls(msg)).toEqual(good);
  });

  it.each([undefined, null, []])('gives no calls for tool_calls %j', (toolCalls) => {
    expect(validToolCalls({ role: 'assistant', content: 'x', tool_calls: toolCalls })).toEqual([]);
  });
});

describe('toolCallArguments', () => {
  it.each<[string, ChatToolCall['function']['arguments'], unknown]>([
    ['a JSON string is parsed', '{"path": "a.txt", "limit": 3}', { path: 'a.txt', limit: 3 }],
    ['invalid JSON becomes {}', '{"path": ', {}],
    ['an empty string becomes {}', '', {}],
    ['an already-parsed object is used as is', { path: 'b' }, { path: 'b' }],
    ['valid JSON that is not an object is kept (upstream uses json.loads as is)', 'null', null],
  ])('%s', (_name, args, expected) => {
    expect(toolCallArguments(call('t', args))).toEqual(expected);
  });
});
