import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { argumentPieces, wordPieces } from '@hermes-datagen/testkit/internal/sse.js';
import { clientFor, scriptedEndpoint, offer, user } from './endpoint.js';

const ARGUMENTS = { path: 'fib.py', content: 'a, b = 0, 1\nfor _ in range(10):\n    print(a)\n' };

const script = {
  sequences: [
    {
      match: { exact: 'stream me' },
      replies: [
        {
          content: 'Writing the file now.',
          reasoning: 'First write the script, then run it.',
          tool_calls: [
            { name: 'write_file', arguments: ARGUMENTS },
            { name: 'terminal', arguments: { command: 'python3 fib.py' } },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 20 },
        },
      ],
    },
  ],
};

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const deltaText = (chunks: ChatCompletionChunk[], field: string): string =>
  chunks
    .map((c) => (c.choices[0]?.delta as Record<string, unknown> | undefined)?.[field])
    .filter((v) => typeof v === 'string')
    .join('');

describe('pieces', () => {
  it('cut text and arguments into pieces that join back to the whole', () => {
    const text = 'one two three four five six seven';
    expect(wordPieces(text)).toEqual(['one two three ', 'four five six ', 'seven']);
    expect(wordPieces('')).toEqual([]);
    const args = JSON.stringify(ARGUMENTS);
    expect(argumentPieces(args).length).toBe(3);
    expect(argumentPieces(args).join('')).toBe(args);
  });
});

describe('streaming (stream: true) through the openai client', () => {
  it('streams reasoning, content and tool calls whose argument deltas are split across chunks', async () => {
    const target = await scriptedEndpoint({ script });
    const chunks = await collect(
      await clientFor(target).chat.completions.create({
        model: 'm',
        messages: [user('stream me')],
        tools: offer('write_file', 'terminal'),
        stream: true,
      }),
    );
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(deltaText(chunks, 'reasoning')).toBe('First write the script, then run it.');
    expect(deltaText(chunks, 'content')).toBe('Writing the file now.');
    const argumentChunks = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.index === 0 && c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments);
    expect(argumentChunks.length).toBeGreaterThan(1);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.some((c) => c.usage)).toBe(false);
    const request = target.requests[0]?.body as { stream: boolean };
    expect(request.stream).toBe(true);
  });

  it('reassembles into the same message with the client stream helper', async () => {
    const target = await scriptedEndpoint({ script });
    const client = clientFor(target);
    const streamed = await client.chat.completions
      .stream({ model: 'm', messages: [user('stream me')], tools: offer('write_file', 'terminal') })
      .finalChatCompletion();
    const plain = await client.chat.completions.create({ model: 'm', messages: [user('stream me')], tools: offer('write_file', 'terminal') });
    const calls = streamed.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((c) => c.type === 'function' && c.function.name)).toEqual(['write_file', 'terminal']);
    expect(calls.map((c) => c.type === 'function' && JSON.parse(c.function.arguments))).toEqual([ARGUMENTS, { command: 'python3 fib.py' }]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(streamed.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
  });

  it('ends with a usage chunk when stream_options.include_usage is set', async () => {
    const target = await scriptedEndpoint({ script });
    const chunks = await collect(
      await clientFor(target).chat.completions.create({
        model: 'm',
        messages: [user('stream me')],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it.each([
    ['reasoning_content', (chunks: ChatCompletionChunk[]) => deltaText(chunks, 'reasoning_content')],
    [
      'reasoning_details',
      (chunks: ChatCompletionChunk[]) =>
        chunks
          .flatMap((c) => (c.choices[0]?.delta as { reasoning_details?: { type: string; summary: string }[] } | undefined)?.reasoning_details ?? [])
          .map((d) => {
            expect(d.type).toBe('reasoning.summary');
            return d.summary;
          })
          .join(''),
    ],
    ['inline_think', (chunks: ChatCompletionChunk[]) => /^<think>\n(.*)\n<\/think>\n$/s.exec(deltaText(chunks, 'content'))?.[1]],
    [
      'inline_scratchpad',
      (chunks: ChatCompletionChunk[]) => /^<REASONING_SCRATCHPAD>\n(.*)\n<\/REASONING_SCRATCHPAD>\n$/s.exec(deltaText(chunks, 'content'))?.[1],
    ],
  ] as const)('streams reasoning in %s', async (field, reasoningOf) => {
    const target = await scriptedEndpoint({
      script: { sequences: [{ match: { exact: 'think' }, replies: [{ reasoning: 'Several words of careful thought here.', reasoning_field: field }] }] },
    });
    const chunks = await collect(await clientFor(target).chat.completions.create({ model: 'm', messages: [user('think')], stream: true }));
    expect(reasoningOf(chunks)).toBe('Several words of careful thought here.');
    expect(deltaText(chunks, 'reasoning')).toBe('');
  });
});
