import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FaultPicker, type FaultContext } from '@hermes-datagen/testkit/internal/faults.js';
import type { FaultKind, FaultRule } from '@hermes-datagen/testkit';
import { clientFor, scriptedEndpoint, offer, user } from './endpoint.js';

const context = (overrides: Partial<FaultContext> = {}): FaultContext => ({ prompt: 'p', step: 0, nth: 1, model: 'm', requestDigest: 'd', ...overrides });

/** A script where the prompt `kind` meets that fault, so one endpoint serves every fault. */
const faultFor = (kind: FaultKind, extra: Partial<FaultRule> = {}): FaultRule => ({ kind, when: { prompt: { exact: kind } }, ...extra });

async function ask(client: OpenAI, prompt: string): Promise<OpenAI.Chat.Completions.ChatCompletion> {
  return client.chat.completions.create({ model: 'm', messages: [user(prompt)], tools: offer('terminal', 'read_file') });
}

async function failure(promise: Promise<unknown>): Promise<Error & { status?: number; code?: string; type?: string; headers?: Headers }> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error('expected the request to fail');
  return outcome;
}

describe('FaultPicker', () => {
  it('applies the first rule whose conditions all hold', () => {
    const picker = new FaultPicker(
      [
        { kind: 'server_error', when: { prompt: { contains: 'x' }, step: 1 } },
        { kind: 'drop', when: { nth: [2, 4] } },
        { kind: 'html', when: { model: 'gpt' } },
      ],
      0,
    );
    expect(picker.pick(context({ prompt: 'x', step: 1, nth: 2 }))?.kind).toBe('server_error');
    expect(picker.pick(context({ prompt: 'x', step: 0, nth: 2 }))?.kind).toBe('drop');
    expect(picker.pick(context({ nth: 3, model: 'gpt' }))?.kind).toBe('html');
    expect(picker.pick(context({ nth: 3 }))).toBeUndefined();
  });

  it('draws by rate from the seed and the request, not the arrival order; a repeated request draws afresh', () => {
    const rules: FaultRule[] = [{ kind: 'rate_limit', rate: 0.3 }];
    const digests = Array.from({ length: 400 }, (_, i) => `request-${i}`);
    const hits = (picker: FaultPicker, order: string[]): Set<string> => new Set(order.filter((d) => picker.pick(context({ requestDigest: d }))));
    const forward = hits(new FaultPicker(rules, 7), digests);
    expect(hits(new FaultPicker(rules, 7), [...digests].reverse())).toEqual(forward);
    expect(forward.size).toBeGreaterThan(80);
    expect(forward.size).toBeLessThan(160);
    expect(hits(new FaultPicker(rules, 8), digests)).not.toEqual(forward);
    const picker = new FaultPicker(rules, 7);
    const outcomes = Array.from({ length: 40 }, () => picker.pick(context({ requestDigest: 'same' })) !== undefined);
    expect(new Set(outcomes)).toEqual(new Set([true, false]));
  });
});

describe('faults seen from the openai client', () => {
  it('429 carries Retry-After (and retry-after-ms when asked)', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('rate_limit', { retry_after_s: 2, retry_after_ms: 250 })] } });
    const error = await failure(ask(clientFor(target), 'rate_limit'));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.headers?.get('retry-after')).toBe('2');
    expect(error.headers?.get('retry-after-ms')).toBe('250');
  });

  it('a 429 on the first request only is retried by the client after retry-after-ms, then answered', async () => {
    const target = await scriptedEndpoint({ script: { faults: [{ kind: 'rate_limit', when: { nth: [1] }, retry_after_ms: 80 }] } });
    const started = Date.now();
    const completion = await ask(clientFor(target, { maxRetries: 2 }), 'list files');
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    expect(completion.choices[0]?.message.tool_calls?.[0]?.type).toBe('function');
    expect(target.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });

  it('500 and 503 (with its optional Retry-After)', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('server_error'), faultFor('unavailable', { retry_after_s: 3 })] } });
    const client = clientFor(target);
    const internal = await failure(ask(client, 'server_error'));
    expect(internal).toBeInstanceOf(OpenAI.InternalServerError);
    expect(internal.status).toBe(500);
    const unavailable = await failure(ask(client, 'unavailable'));
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers?.get('retry-after')).toBe('3');
  });

  it('slow replies arrive after their delay', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('slow', { delay_ms: 300 })] } });
    const started = Date.now();
    const completion = await ask(clientFor(target), 'slow');
    expect(Date.now() - started).toBeGreaterThanOrEqual(295);
    expect(completion.choices).toHaveLength(1);
  });

  it('a timeout never answers: the client gives up, and close() still ends at once', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('timeout')] } });
    const error = await failure(ask(clientFor(target, { timeout: 300 }), 'timeout'));
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    const hanging = ask(clientFor(target, { timeout: 60_000 }), 'timeout').catch((e: unknown) => e);
    while (target.requests.length < 2) await new Promise((resolve) => setImmediate(resolve));
    await target.close();
    // Ended by close(), not by the client giving up after its 60 s: a connection error, not a timeout.
    const ended = await hanging;
    expect(ended).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(ended).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('a dropped connection breaks a reply halfway, plain or streamed', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('drop')] } });
    const client = clientFor(target);
    expect((await failure(ask(client, 'drop'))).message).toMatch(/terminated/);
    const stream = await client.chat.completions.create({ model: 'm', messages: [user('drop')], stream: true });
    const consumed = (async (): Promise<void> => {
      for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
    })();
    expect((await failure(consumed)).message).toMatch(/terminated/);
  });

  it('an HTML page with status 200 reaches the caller as text, with no choices', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('html')] } });
    const { data, response } = await clientFor(target)
      .chat.completions.create({ model: 'm', messages: [user('html')] })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(typeof data).toBe('string');
    expect(String(data)).toMatch(/^<!DOCTYPE html>/);
    expect((data as { choices?: unknown }).choices).toBeUndefined();
  });

  it('a JSON body without choices', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('no_choices')] } });
    const completion = await ask(clientFor(target), 'no_choices');
    expect(completion.choices).toBeUndefined();
    expect(completion).toHaveProperty('error.message');
  });

  it('a complete 200 whose JSON body is cut in half: the client cannot parse it', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('truncated')] } });
    const response = await fetch(`${target.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [user('truncated')] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^\{"id":"chatcmpl-/);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });

  it('an error object with its code in a 200 body, as gateways report an upstream rate limit', async () => {
    const target = await scriptedEndpoint({
      script: { faults: [faultFor('error_in_200'), { kind: 'error_in_200', code: 503, when: { prompt: { exact: 'other' } } }] },
    });
    const client = clientFor(target);
    expect(await ask(client, 'error_in_200')).toMatchObject({ error: { code: 429 } });
    expect(await ask(client, 'other')).toMatchObject({ error: { code: 503 } });
  });

  it('401 as an invalid key or as an expired OAuth token', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('unauthorized'), faultFor('oauth_expired')] } });
    const client = clientFor(target);
    const key = await failure(ask(client, 'unauthorized'));
    expect(key).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(key.code).toBe('invalid_api_key');
    const oauth = await failure(ask(client, 'oauth_expired'));
    expect(oauth.status).toBe(401);
    expect(oauth.type).toBe('invalid_token');
    expect(oauth.message).toMatch(/OAuth token expired/);
  });

  it('401 for a missing or wrong key when the endpoint expects one, and never an echo of the key', async () => {
    const target = await scriptedEndpoint({ apiKey: 'sk-expected-secret' });
    const wrong = await failure(ask(clientFor(target), 'hi'));
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(wrong.message).toMatch(/Incorrect API key/);
    const missing = await fetch(`${target.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [user('hi')] }) });
    expect(missing.status).toBe(401);
    expect(await missing.text()).toMatch(/No API key provided/);
    const right = await ask(clientFor(target, { apiKey: 'sk-expected-secret' }), 'hi');
    expect(right.choices).toHaveLength(1);
    expect(JSON.stringify(target.requests)).not.toContain('sk-expected-secret');
    expect(JSON.stringify(target.requests)).not.toContain('sk-test-key');
  });

  it("404 model_not_found for a model outside the script's list", async () => {
    const target = await scriptedEndpoint({ script: { models: ['team/model-a'] } });
    const client = clientFor(target);
    const error = await failure(client.chat.completions.create({ model: 'team/modle-a', messages: [user('hi')] }));
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe('model_not_found');
    expect(error.message).toContain("'team/modle-a'");
    const ok = await client.chat.completions.create({ model: 'team/model-a', messages: [user('hi')] });
    expect(ok.model).toBe('team/model-a');
  });

  it('a call to a tool that was not offered', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('hallucinated_tool')] } });
    const completion = await ask(clientFor(target), 'hallucinated_tool');
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('web_search_v2');
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('tool-call arguments that are not JSON, whether or not the reply had a tool call', async () => {
    const target = await scriptedEndpoint({ script: { faults: [faultFor('invalid_arguments')] } });
    const withCall = (await ask(clientFor(target), 'invalid_arguments')).choices[0]?.message.tool_calls?.[0];
    expect(withCall?.type === 'function' && withCall.function.name).toBe('terminal');
    expect(() => JSON.parse(withCall?.type === 'function' ? withCall.function.arguments : '{}')).toThrow(SyntaxError);
    const textOnly = await scriptedEndpoint({
      script: { faults: [{ kind: 'invalid_arguments' }], sequences: [{ match: { exact: 'text only' }, replies: [{ content: 'hi' }] }] },
    });
    const call = (await ask(clientFor(textOnly), 'text only')).choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.arguments).toBe('{"command":"ls -la"');
  });

  it('faults by rate hit the same prompts on every run with the same seed', async () => {
    const prompts = Array.from({ length: 30 }, (_, i) => `task number ${i}`);
    const failing = async (seed: number): Promise<string[]> => {
      const target = await scriptedEndpoint({ seed, script: { faults: [{ kind: 'server_error', rate: 0.4 }] } });
      const client = clientFor(target);
      const outcomes = await Promise.all(
        prompts.map((p) =>
          ask(client, p).then(
            () => false,
            () => true,
          ),
        ),
      );
      return prompts.filter((_, i) => outcomes[i]);
    };
    const first = await failing(3);
    expect(first.length).toBeGreaterThan(3);
    expect(first.length).toBeLessThan(27);
    expect(await failing(3)).toEqual(first);
  });
});
