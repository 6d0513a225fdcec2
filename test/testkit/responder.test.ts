import { describe, expect, it } from 'vitest';
import { chooseReply } from '@hermes-datagen/testkit/internal/responder.js';
import type { ChatMessage, ChatRequest } from '@hermes-datagen/testkit/internal/request.js';
import type { Script } from '@hermes-datagen/testkit';

const script: Script = {
  sequences: [
    {
      match: { contains: 'two steps' },
      replies: [
        { content: 'first', tool_calls: [{ name: 'terminal', arguments: { command: 'ls' } }] },
        {
          content: 'second',
          reasoning: 'almost there',
          reasoning_field: 'reasoning_content',
          tool_calls: [{ name: 'terminal', arguments: { command: 'pwd' } }],
        },
      ],
    },
    { match: { regex: '^hello$' }, replies: [{ content: 'Hi.', reasoning: 'greeting' }] },
    { match: { exact: 'blank' }, replies: [{ content: '', tool_calls: [{ name: 'terminal', arguments: {} }] }] },
  ],
};

/** A request whose history holds `step` assistant turns. */
function at(prompt: string, step: number): ChatRequest {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: prompt },
  ];
  for (let i = 0; i < step; i++) messages.push({ role: 'assistant', content: `turn ${i}` }, { role: 'user', content: 'go on' });
  return { model: 'm', messages };
}

describe('chooseReply', () => {
  it('answers a matching sequence by the number of assistant messages in the request', () => {
    expect(chooseReply(script, at('do this in two steps', 0)).content).toBe('first');
    expect(chooseReply(script, at('do this in two steps', 1)).content).toBe('second');
  });

  it('repeats a final text answer once the sequence has run out', () => {
    const past = chooseReply(script, at('do this in two steps', 2));
    expect(past).toEqual({ content: 'second', finish_reason: 'stop', reasoning: 'almost there', reasoning_field: 'reasoning_content' });
    expect(chooseReply(script, at('do this in two steps', 7))).toEqual(past);
    expect(chooseReply(script, at('hello', 3))).toEqual({ content: 'Hi.', reasoning: 'greeting' });
    expect(chooseReply(script, at('blank', 1))).toEqual({ content: 'Done.', finish_reason: 'stop' });
  });

  it('leaves prompts no sequence matches to the policy', () => {
    const reply = chooseReply(script, at('hello there', 0));
    expect(reply.content).toMatch(/^No tools were offered/);
  });
});
