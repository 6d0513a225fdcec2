import { describe, expect, it } from 'vitest';
import { renderCompletion, renderMessage, type RenderContext } from '@hermes-datagen/testkit/internal/reply.js';

const context: RenderContext = { model: 'm', requestDigest: 'ab'.repeat(32), promptChars: 400, reasoningField: 'reasoning' };

describe('renderMessage', () => {
  it('puts reasoning in the chosen field, or inline before the content', () => {
    const reply = { content: 'answer', reasoning: 'why' };
    expect(renderMessage(reply, context)).toEqual({ role: 'assistant', content: 'answer', reasoning: 'why' });
    expect(renderMessage({ ...reply, reasoning_field: 'reasoning_content' }, context)).toEqual({
      role: 'assistant',
      content: 'answer',
      reasoning_content: 'why',
    });
    expect(renderMessage({ ...reply, reasoning_field: 'reasoning_details' }, context)).toEqual({
      role: 'assistant',
      content: 'answer',
      reasoning_details: [{ type: 'reasoning.summary', summary: 'why' }],
    });
    expect(renderMessage({ ...reply, reasoning_field: 'inline_think' }, context).content).toBe('<think>\nwhy\n</think>\nanswer');
    expect(renderMessage({ reasoning: 'why', reasoning_field: 'inline_scratchpad' }, context).content).toBe(
      '<REASONING_SCRATCHPAD>\nwhy\n</REASONING_SCRATCHPAD>\n',
    );
    expect(renderMessage(reply, { ...context, reasoningField: 'reasoning_content' }).reasoning_content).toBe('why');
  });

  it('sends object arguments as JSON text and string arguments untouched, with stable distinct ids', () => {
    const message = renderMessage(
      {
        content: null,
        tool_calls: [
          { name: 'terminal', arguments: { command: 'ls' } },
          { name: 'x', arguments: '{bad' },
        ],
      },
      context,
    );
    expect(message.tool_calls?.map((c) => c.function)).toEqual([
      { name: 'terminal', arguments: '{"command":"ls"}' },
      { name: 'x', arguments: '{bad' },
    ]);
    const ids = message.tool_calls?.map((c) => c.id) ?? [];
    expect(new Set(ids).size).toBe(2);
    expect(renderMessage({ tool_calls: [{ name: 'terminal', arguments: {} }] }, context).tool_calls?.[0]?.id).toBe(ids[0]);
    expect(renderMessage({ tool_calls: [{ name: 'terminal', arguments: {}, id: 'call_mine' }] }, context).tool_calls?.[0]?.id).toBe('call_mine');
  });
});

describe('renderCompletion', () => {
  it('derives the finish reason from the tool calls unless the reply gives one', () => {
    expect(renderCompletion({ content: 'a' }, context).choices[0].finish_reason).toBe('stop');
    expect(renderCompletion({ tool_calls: [{ name: 't', arguments: {} }] }, context).choices[0].finish_reason).toBe('tool_calls');
    expect(renderCompletion({ content: 'a', finish_reason: 'length' }, context).choices[0].finish_reason).toBe('length');
  });

  it('uses the scripted usage, or estimates about four characters a token', () => {
    expect(renderCompletion({ content: 'a', usage: { prompt_tokens: 7, completion_tokens: 3 } }, context).usage).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
    const estimated = renderCompletion({ content: 'x'.repeat(400) }, context).usage;
    expect(estimated.prompt_tokens).toBe(100);
    expect(estimated.completion_tokens).toBeGreaterThanOrEqual(100);
    expect(estimated.completion_tokens).toBeLessThan(120);
    expect(estimated.total_tokens).toBe(estimated.prompt_tokens + estimated.completion_tokens);
  });
});
