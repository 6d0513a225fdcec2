import { describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import { DEFAULT_MODEL, fingerprint, startScriptedEndpoint, type ReasoningField, type Script } from '@hermes-datagen/testkit';
import { parsedJson } from '../util/parsedJson.js';
import { clientFor, scriptedEndpoint, extra, offer, user } from './endpoint.js';

const FIELDS: ReasoningField[] = ['reasoning', 'reasoning_content', 'reasoning_details', 'inline_think', 'inline_scratchpad'];

const byField: Script = {
  sequences: FIELDS.map((field) => ({
    match: { exact: field },
    replies: [
      {
        reasoning: `thinking in ${field}`,
        reasoning_field: field,
        content: null,
        tool_calls: [
          { name: 'read_file', arguments: { path: 'a.txt' } },
          { name: 'terminal', arguments: { command: 'wc -l a.txt' } },
        ],
      },
      { reasoning: 'done', reasoning_field: field, content: 'a.txt has 3 lines.' },
    ],
  })),
};

describe('non-streaming replies', () => {
  it.each(FIELDS)('carries tool calls and reasoning in %s', async (field) => {
    const target = await scriptedEndpoint({ script: byField });
    const completion = await clientFor(target).chat.completions.create({ model: 'any-model', messages: [user(field)], tools: offer('read_file', 'terminal') });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('any-model');
    const message = completion.choices[0]!.message;
    expect(message.tool_calls?.map((c) => c.type === 'function' && [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['read_file', { path: 'a.txt' }],
      ['terminal', { command: 'wc -l a.txt' }],
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    const reasoning = `thinking in ${field}`;
    if (field === 'reasoning' || field === 'reasoning_content') expect(extra(message, field)).toBe(reasoning);
    if (field === 'reasoning_details') expect(extra(message, field)).toEqual([{ type: 'reasoning.summary', summary: reasoning }]);
    if (field === 'inline_think') expect(message.content).toBe(`<think>\n${reasoning}\n</think>\n`);
    if (field === 'inline_scratchpad') expect(message.content).toBe(`<REASONING_SCRATCHPAD>\n${reasoning}\n</REASONING_SCRATCHPAD>\n`);
    const usage = completion.usage!;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it('takes the next reply once the tool results are in the history', async () => {
    const target = await scriptedEndpoint({ script: byField });
    const client = clientFor(target);
    const first = (await client.chat.completions.create({ model: 'm', messages: [user('reasoning')] })).choices[0]!.message;
    const second = await client.chat.completions.create({
      model: 'm',
      messages: [user('reasoning'), first, ...(first.tool_calls ?? []).map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'ok' }))],
    });
    expect(second.choices[0]?.message.content).toBe('a.txt has 3 lines.');
    expect(second.choices[0]?.finish_reason).toBe('stop');
  });

  it('gives the same conversation the same tool call ids whatever per-run fields the request carries, and another conversation others', async () => {
    const target = await scriptedEndpoint({ script: byField });
    const client = clientFor(target);
    const ids = async (prompt: string, run: string): Promise<string[]> =>
      (
        (await client.chat.completions.create({ model: 'm', messages: [user(prompt)], user: `hermes:${run}:r1:trace-${run}` })).choices[0]?.message
          .tool_calls ?? []
      ).map((c) => c.id);
    const first = await ids('reasoning', 'a');
    expect(first).toHaveLength(2);
    expect(await ids('reasoning', 'b')).toEqual(first);
    expect(await ids('reasoning_content', 'a')).not.toEqual(first);
  });

  it('adds the configured latency to every reply, however many wait at once', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const target = await scriptedEndpoint({ latencyMs: 100 });
      const client = clientFor(target);
      const started = Date.now();
      await Promise.all(Array.from({ length: 30 }, (_, i) => client.chat.completions.create({ model: 'm', messages: [user(`hi ${i}`)] })));
      expect(Date.now() - started).toBeGreaterThanOrEqual(95);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).toEqual([]);
  });
});

describe('close()', () => {
  it('cuts short the replies still waiting out the latency: their timers go, and their requests end', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const target = await startScriptedEndpoint({ latencyMs: 3_600_000 });
    const client = clientFor(target);
    const replies = Array.from({ length: 5 }, (_, i) => client.chat.completions.create({ model: 'm', messages: [user(`hi ${i}`)] }).catch((e: unknown) => e));
    await vi.waitFor(() => expect(target.requests).toHaveLength(5));
    expect(timers()).toBeGreaterThanOrEqual(before + 5);
    await target.close();
    for (const reply of await Promise.all(replies)) expect(reply).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(timers()).toBeLessThanOrEqual(before);
  });
});

describe('routes', () => {
  it('serves under a configurable base path; a client adding /v1 again gets 404', async () => {
    const target = await scriptedEndpoint({ basePath: '/api/v1' });
    expect(target.url).toBe(`http://127.0.0.1:${target.port}/api/v1`);
    const ok = await clientFor(target).chat.completions.create({ model: 'm', messages: [user('hi')] });
    expect(ok.choices).toHaveLength(1);
    const doubled = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const error = await doubled.chat.completions.create({ model: 'm', messages: [user('hi')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(target.requests.map((r) => r.path)).toEqual(['/api/v1/chat/completions', '/api/v1/v1/chat/completions']);
  });

  it("lists the script's models, or a default one", async () => {
    const listed = await clientFor(await scriptedEndpoint({ script: { models: ['a/one', 'b/two'] } })).models.list();
    expect(listed.data.map((m) => m.id)).toEqual(['a/one', 'b/two']);
    const defaults = await clientFor(await scriptedEndpoint()).models.list();
    expect(defaults.data.map((m) => m.id)).toEqual([DEFAULT_MODEL]);
  });

  it('checks the key on /models too', async () => {
    const target = await scriptedEndpoint({ apiKey: 'sk-models' });
    const error = await clientFor(target)
      .models.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('answers 400 to a body that is not a chat request', async () => {
    const target = await scriptedEndpoint();
    const notJson = await fetch(`${target.url}/chat/completions`, { method: 'POST', body: '{"model":' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { message: 'the request body is not valid JSON' } });
    const noMessages = await fetch(`${target.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm' }) });
    expect(noMessages.status).toBe(400);
    expect(target.requests[0]?.body).toBe('{"model":');
  });

  it('rejects a malformed in-process script before listening', async () => {
    await expect(scriptedEndpoint({ script: parsedJson<Script>({ faults: [{ kind: 'nope' }] }) })).rejects.toThrow(/options\.script at \/faults\/0\/kind/);
  });
});

describe('request log', () => {
  it('keeps path, headers and body, with the key only as a fingerprint', async () => {
    const target = await scriptedEndpoint({ apiKey: 'sk-live-0123456789' });
    await clientFor(target, { apiKey: 'sk-live-0123456789' }).chat.completions.create({ model: 'm', messages: [user('hi')], tools: offer('terminal') });
    const [logged] = target.requests;
    expect(logged?.method).toBe('POST');
    expect(logged?.path).toBe('/v1/chat/completions');
    expect(logged?.headers['authorization']).toBe(fingerprint('sk-live-0123456789'));
    expect(logged?.body).toMatchObject({ model: 'm', messages: [user('hi')] });
    expect(JSON.stringify(target.requests)).not.toContain('0123456789');
  });

  it('can be turned off', async () => {
    const target = await scriptedEndpoint({ recordRequests: false });
    await clientFor(target).chat.completions.create({ model: 'm', messages: [user('hi')] });
    expect(target.requests).toEqual([]);
  });
});

describe('concurrency', () => {
  it('answers many parallel conversations each by its own step, with no shared state', async () => {
    const prompts = ['alpha', 'beta', 'gamma', 'delta'];
    const steps = 5;
    const script: Script = {
      sequences: prompts.map((prompt) => ({
        match: { exact: prompt },
        replies: Array.from({ length: steps }, (_, step) => ({
          content: `${prompt} step ${step}`,
          tool_calls: [{ name: 'terminal', arguments: { command: `echo ${prompt} ${step}` } }],
        })),
      })),
    };
    const target = await scriptedEndpoint({ script, latencyMs: 5 });
    const client = clientFor(target);
    const history = (prompt: string, step: number): OpenAI.Chat.Completions.ChatCompletionMessageParam[] => [
      user(prompt),
      ...Array.from({ length: step }, (_, i) => [
        {
          role: 'assistant' as const,
          content: `${prompt} step ${i}`,
          tool_calls: [{ id: `c${i}`, type: 'function' as const, function: { name: 'terminal', arguments: '{}' } }],
        },
        { role: 'tool' as const, tool_call_id: `c${i}`, content: 'ok' },
      ]).flat(),
    ];
    const jobs = Array.from({ length: 3 }, () => prompts.flatMap((prompt) => Array.from({ length: steps }, (_, step) => ({ prompt, step })))).flat();
    const answers = await Promise.all(
      jobs.map(
        async ({ prompt, step }) =>
          (await client.chat.completions.create({ model: 'm', messages: history(prompt, step), tools: offer('terminal') })).choices[0]?.message,
      ),
    );
    expect(jobs).toHaveLength(60);
    answers.forEach((message, i) => {
      const { prompt, step } = jobs[i]!;
      expect(message?.content).toBe(`${prompt} step ${step}`);
      const call = message?.tool_calls?.[0];
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ command: `echo ${prompt} ${step}` });
    });
    expect(target.requests).toHaveLength(60);
  });
});
