import { describe, expect, it } from 'vitest';
import { firstUserText, offeredToolNames, parseChatRequest, stepOf, type ChatRequest } from '@hermes-datagen/testkit/internal/request.js';

const request = (messages: ChatRequest['messages'], tools?: ChatRequest['tools']): ChatRequest => ({ model: 'm', messages, ...(tools ? { tools } : {}) });

describe('parseChatRequest', () => {
  it('says what is missing', () => {
    expect(parseChatRequest([])).toBe('the request body must be a JSON object');
    expect(parseChatRequest({ messages: [{ role: 'user', content: 'x' }] })).toBe('"model" is required');
    expect(parseChatRequest({ model: 'm', messages: [] })).toBe('"messages" must be a non-empty array');
    expect(parseChatRequest({ model: 'm', messages: [{ content: 'x' }] })).toBe('every message needs a "role"');
    expect(parseChatRequest({ model: 'm', messages: [{ role: 'user' }], tools: {} })).toBe('"tools" must be an array');
    expect(parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).toEqual({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  });
});

describe('request facts', () => {
  it('reads the first user text (string or text parts), the step and the offered tools', () => {
    const r = request(
      [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'Hello ' }, { type: 'image_url' }, { type: 'text', text: 'there' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{}' } }] },
        { role: 'tool', content: 'out', tool_call_id: 'c1' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'second question' },
      ],
      [
        { type: 'function', function: { name: 'terminal' } },
        { type: 'function', function: {} },
        { type: 'function', function: { name: 'read_file' } },
      ],
    );
    expect(firstUserText(r)).toBe('Hello there');
    expect(stepOf(r)).toBe(2);
    expect(offeredToolNames(r)).toEqual(['terminal', 'read_file']);
    expect(firstUserText(request([{ role: 'system', content: 'only' }]))).toBe('');
  });
});
