// Where a reply's reasoning is read from, one test per shape a provider or gateway sends, and the
// model the reply says served it.
import { describe, expect, it } from 'vitest';
import { readModelReply } from '@hermes-datagen/generate/internal/modelReply.js';

const reply = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  readModelReply({ model: 'served-x', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }], ...extra }, 0);

const block = (thinking: string) => ({ type: 'thinking', thinking, signature: 'sig' });

describe('readModelReply reasoning', () => {
  it.each([
    ['message.reasoning', { content: 'answer', reasoning: 'I thought.' }],
    ['message.reasoning_content', { content: 'answer', reasoning_content: 'I thought.' }],
    ['message.thinking', { content: 'answer', thinking: 'I thought.' }],
    ['message.reasoning_details', { content: 'answer', reasoning_details: [{ type: 'reasoning.summary', summary: 'I thought.' }] }],
    ['message.thinking_blocks (LiteLLM, Anthropic models)', { content: 'answer', thinking_blocks: [block('I thought.')] }],
    ['provider_specific_fields.reasoning_content (LiteLLM)', { content: 'answer', provider_specific_fields: { reasoning_content: 'I thought.' } }],
    ['provider_specific_fields.thinking_blocks (LiteLLM)', { content: 'answer', provider_specific_fields: { thinking_blocks: [block('I thought.')] } }],
    ['Anthropic-style thinking content blocks', { content: [block('I thought.'), { type: 'text', text: 'answer' }] }],
    ['inline <think> in the content', { content: '<think>I thought.</think>answer' }],
  ])('%s', (_, message) => {
    const { message: read } = reply(message);
    expect(read.reasoning).toBe('I thought.');
    expect(read.content).toBe('answer');
  });

  it('a thinking block and the same text elsewhere count once; other blocks are not reasoning', () => {
    const { message } = reply({
      content: [block('Same.'), { type: 'redacted_thinking', data: 'xyz' }, { type: 'text', text: 'answer' }],
      provider_specific_fields: { thinking_blocks: [block('Same.')] },
    });
    expect(message.reasoning).toBe('Same.');
    expect(reply({ content: 'answer', thinking_blocks: [{ type: 'redacted_thinking', data: 'x' }] }).message.reasoning).toBeNull();
  });
});

describe('readModelReply served model', () => {
  it("is the reply's model, or null when it names none", () => {
    expect(reply({ content: 'a' }).servedModel).toBe('served-x');
    expect(reply({ content: 'a' }, { model: undefined }).servedModel).toBeNull();
    expect(reply({ content: 'a' }, { model: '' }).servedModel).toBeNull();
  });
});
