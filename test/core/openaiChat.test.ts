// A trajectory as OpenAI chat messages: structured tool calls answered by tool messages with the call's id,
// reasoning where --reasoning-field puts it, the tools of the system turn as JSON schemas, ids stable, and
// a record that cannot be split faithfully refused with the place and reason.
import { describe, expect, it } from 'vitest';
import { parseReasoningPlacement, toOpenAIChat, validator, type Trajectory } from '@hermes-datagen/core';
import { toolCallId, type OpenAIChat } from '@hermes-datagen/core/internal/openaiChat.js';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';
import { gpt, human, rawGpt, tool, trajectory } from '../util/trajectories.js';

const TERMINAL = {
  name: 'terminal',
  description: 'Run a command',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
};
const READ = { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } };

const record = trajectory({
  id: 'rec-1',
  conversations: [
    { from: 'system', value: hermesSystemPrompt([READ, TERMINAL]) },
    human('List the files, then read a.txt'),
    gpt({ think: "I'll run ls.", text: 'Listing.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
    tool({ name: 'terminal', content: { output: 'a.txt', exit_code: 0 } }),
    gpt({
      calls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'terminal', arguments: { command: 'wc -l a.txt' } },
      ],
    }),
    tool({ name: 'read_file', content: 'hello <tool_call> in a file' }, { name: 'terminal', content: { output: '1 a.txt' } }),
    gpt({ think: 'Done.', text: 'a.txt says hello.' }),
  ],
});

function chatOf(value: Trajectory, reasoning = 'reasoning_content'): OpenAIChat {
  const chat = toOpenAIChat(value, value.id ?? 'x', parseReasoningPlacement(reasoning));
  if ('problem' in chat) throw new Error(chat.problem);
  return chat;
}

describe('toOpenAIChat', () => {
  it('splits calls and results into OpenAI messages; the Hermes template system turn becomes the tools', () => {
    const { messages, tools } = chatOf(record);
    const [first, second, third] = [toolCallId('rec-1', 2, 0), toolCallId('rec-1', 4, 0), toolCallId('rec-1', 4, 1)];
    expect(messages).toEqual([
      { role: 'user', content: 'List the files, then read a.txt' },
      {
        role: 'assistant',
        content: 'Listing.',
        reasoning_content: "I'll run ls.",
        tool_calls: [{ id: first, type: 'function', function: { name: 'terminal', arguments: '{"command": "ls"}' } }],
      },
      { role: 'tool', tool_call_id: first, content: '{"output": "a.txt", "exit_code": 0}' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: second, type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"}' } },
          { id: third, type: 'function', function: { name: 'terminal', arguments: '{"command": "wc -l a.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: second, content: 'hello <tool_call> in a file' },
      { role: 'tool', tool_call_id: third, content: '{"output": "1 a.txt"}' },
      { role: 'assistant', content: 'a.txt says hello.', reasoning_content: 'Done.' },
    ]);
    expect(tools).toEqual([
      { type: 'function', function: READ },
      { type: 'function', function: TERMINAL },
    ]);
    expect(validator('chat-line')({ id: 'rec-1', messages, tools, score: 1 })).toBeNull();
  });

  it('ids are derived from the record id and the position: the same every run, different across records', () => {
    expect(chatOf(record)).toEqual(chatOf(structuredClone(record)));
    const other = chatOf({ ...record, id: 'rec-2' });
    expect(other.messages[1]?.tool_calls?.[0]?.id).not.toBe(chatOf(record).messages[1]?.tool_calls?.[0]?.id);
    expect(toolCallId('rec-1', 2, 0)).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it('--reasoning-field: another field, inline as a <think> block, or dropped', () => {
    expect(chatOf(record, 'thinking').messages[1]).toMatchObject({ thinking: "I'll run ls.", content: 'Listing.' });
    expect(chatOf(record, 'thinking').messages[1]).not.toHaveProperty('reasoning_content');
    expect(chatOf(record, 'inline').messages[6]).toEqual({ role: 'assistant', content: '<think>\nDone.\n</think>\n\na.txt says hello.' });
    expect(chatOf(record, 'drop').messages[6]).toEqual({ role: 'assistant', content: 'a.txt says hello.' });
    for (const bad of ['', 'content', 'role', 'tool_calls']) expect(() => parseReasoningPlacement(bad)).toThrow(/--reasoning-field/);
  });

  it('a system turn that is not the Hermes template is kept verbatim, with the tools it lists', () => {
    const custom = { from: 'system' as const, value: 'Be brief.\n<tools>\n[{"name": "terminal"}]\n</tools>' };
    const { messages, tools } = chatOf(trajectory({ id: 'c', conversations: [custom, human('hi'), gpt({ text: 'hi' })] }));
    expect(messages[0]).toEqual({ role: 'system', content: custom.value });
    expect(tools).toEqual([{ type: 'function', function: { name: 'terminal' } }]);
    expect(chatOf(trajectory({ id: 'd', conversations: [human('hi'), gpt({ text: 'hi' })] })).tools).toEqual([]);
  });

  it.each([
    ['a call that is not JSON', [gpt({ calls: ["{'name': 'terminal'}"] })], /turn 2 \(gpt\): <tool_call> 0: not valid JSON/],
    ['a call cut off', [rawGpt('<think>\n</think>\n<tool_call>\n{"name": "terminal", "argu')], /turn 2 \(gpt\): <tool_call> 0: .*never closed|not valid JSON/],
    ['a call without arguments', [gpt({ calls: ['{"name": "terminal"}'] })], /has no "arguments"/],
    ['a stray close tag', [rawGpt('<think>\n</think>\nDone.</tool_call>')], /turn 2 \(gpt\): a stray tool-call tag/],
    [
      'more results than calls',
      [gpt({ calls: [{ name: 'terminal' }] }), tool({ name: 'terminal', content: 'a' }, { name: 'terminal', content: 'b' })],
      /turn 3 \(tool\): 2 tool results answer 1 tool calls/,
    ],
    ['a result with no call before it', [gpt({ text: 'x' }), tool({ name: 'terminal', content: 'a' })], /turn 3 \(tool\): 1 tool results answer 0/],
    [
      'an unreadable result',
      [gpt({ calls: [{ name: 'terminal' }] }), { from: 'tool' as const, value: '<tool_response>\nnot json\n</tool_response>' }],
      /<tool_response> 0: not valid JSON/,
    ],
  ])('refuses %s, saying where', (_name, turns, message) => {
    const result = toOpenAIChat(trajectory({ id: 'bad', conversations: [record.conversations[0] as never, human('x'), ...turns] }), 'bad', 'drop');
    expect(result).toEqual({ problem: expect.stringMatching(message) });
  });
});
