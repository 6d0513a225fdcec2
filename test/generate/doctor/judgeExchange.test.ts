// The pure judgements behind doctor, on answers that other gateways give and the scripted endpoint
// does not: other error shapes, statuses and model-naming habits.
import { describe, expect, it } from 'vitest';
import {
  closestModels,
  judgeChat,
  listedModels,
  pathVariant,
  type ChatContext,
  type Exchange,
  type HttpExchange,
} from '@hermes-datagen/generate/internal/doctor/judgeExchange.js';

const context: ChatContext = {
  model: 'gpt-4o',
  key: '$GW_KEY (fingerprint 12345678, from $GW_KEY)',
  keyVariable: 'GW_KEY',
  timeoutMs: 15_000,
  timeoutFlag: '--timeout',
  retryAfterCapMs: 30_000,
};

function answer(status: number, body: unknown, extra: Partial<HttpExchange> = {}): Exchange {
  return {
    kind: 'response',
    method: 'POST',
    url: 'https://gw.example/v1/chat/completions',
    status,
    statusText: '',
    contentType: typeof body === 'string' ? 'text/plain' : 'application/json',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    retryAfter: undefined,
    retryAfterMs: undefined,
    elapsedMs: 5,
    ...extra,
  };
}

const idOf = (exchange: Exchange): string => judgeChat(exchange, context).check.id;

describe('judgeChat', () => {
  it('recognises an unknown model in the phrasings gateways use, with 400 or 404', () => {
    expect(idOf(answer(400, { error: { message: 'gpt-4x is not a valid model ID', code: 400 } }))).toBe('model-not-found');
    expect(idOf(answer(404, { error: { message: 'Model gpt-4x not found' } }))).toBe('model-not-found');
    expect(idOf(answer(400, { detail: 'Unknown model: gpt-4x' }))).toBe('model-not-found');
    expect(judgeChat(answer(404, { error: { code: 'model_not_found', message: 'x' } }), context).unknownModel).toBe(true);
  });

  it('tells an OAuth failure from a wrong key by the error, not the status', () => {
    expect(idOf(answer(401, { error: { code: 'token_expired', message: 'Your session has expired' } }))).toBe('oauth');
    expect(idOf(answer(403, { error: 'invalid_token' }))).toBe('oauth');
    expect(idOf(answer(401, { error: { code: 'invalid_api_key', message: 'Incorrect API key provided' } }))).toBe('unauthorized');
    expect(judgeChat(answer(401, { error: { type: 'invalid_token' } }), context).check.fix).toContain('put it in $GW_KEY and set auth_mode: api_key');
  });

  it('403, 5xx and other statuses', () => {
    expect(idOf(answer(403, { error: { message: 'insufficient credit' } }))).toBe('forbidden');
    expect(idOf(answer(502, '<html>bad gateway</html>', { contentType: 'text/html' }))).toBe('not-an-api');
    expect(idOf(answer(503, { error: { message: 'overloaded' } }))).toBe('server-error');
    expect(idOf(answer(400, { error: { message: "Unsupported parameter: 'max_tokens'" } }))).toBe('http-error');
  });

  it('a 429 reports retry-after-ms or an HTTP date as given', () => {
    expect(judgeChat(answer(429, {}, { retryAfterMs: '2500' }), context).check.message).toContain('wait 2500 ms (retry-after-ms)');
    expect(judgeChat(answer(429, {}, { retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT' }), context).check.message).toContain(
      'wait until Wed, 21 Oct 2026 07:28:00 GMT',
    );
  });

  it('200 answers that are not chat completions', () => {
    const text = judgeChat(answer(200, 'OK'), context);
    expect([text.check.id, text.wrongPath]).toEqual(['no-choices', true]);
    expect(judgeChat(answer(200, { choices: [] }), context).check.message).toContain('an empty `choices` list');
    const json = judgeChat(answer(200, { object: 'list', data: [] }), context);
    expect([json.check.id, json.wrongPath]).toEqual(['no-choices', false]);
    expect(idOf(answer(200, '<!doctype html><title>Login</title>', { contentType: '' }))).toBe('not-an-api');
  });

  it('network failures by code; a TLS failure says what to set', () => {
    const failure = (code: string | undefined, message: string): Exchange => ({
      kind: 'error',
      method: 'POST',
      url: 'https://gw.example/v1/chat/completions',
      code,
      timedOut: false,
      message,
    });
    expect(idOf(failure('EAI_AGAIN', 'getaddrinfo EAI_AGAIN gw.example'))).toBe('dns');
    expect(idOf(failure('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'))).toBe('timeout');
    const tls = judgeChat(failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), context).check;
    expect([tls.id, tls.fix]).toEqual(['tls', expect.stringContaining('NODE_EXTRA_CA_CERTS')]);
    expect(idOf(failure('ECONNRESET', 'socket hang up'))).toBe('connection-reset');
    expect(idOf(failure('EPIPE', 'write EPIPE'))).toBe('connection-reset');
    expect(idOf(failure('EHOSTUNREACH', 'connect EHOSTUNREACH'))).toBe('network-error');
  });
});

describe('pathVariant', () => {
  it('adds /v1, or removes one', () => {
    expect(pathVariant('https://gw.example')).toBe('https://gw.example/v1');
    expect(pathVariant('https://gw.example/api')).toBe('https://gw.example/api/v1');
    expect(pathVariant('https://gw.example/api/v1')).toBe('https://gw.example/api');
    expect(pathVariant('https://gw.example/v1/v1')).toBe('https://gw.example/v1');
  });
});

describe('closestModels', () => {
  const listed = ['anthropic/claude-sonnet-4-6', 'anthropic/claude-opus-4-1', 'openai/gpt-4o', 'openai/gpt-4o-mini', 'qwen/qwen3-8b'];

  it('finds the same name under another provider prefix first', () => {
    expect(closestModels('gpt-4o', listed)[0]).toBe('openai/gpt-4o');
    expect(closestModels('taotoken/anthropic/claude-sonnet-4-6', listed)[0]).toBe('anthropic/claude-sonnet-4-6');
  });

  it('finds typos in long versioned names, and nothing for unrelated ids', () => {
    expect(closestModels('anthropic/claude-sonet-4.6', listed)[0]).toBe('anthropic/claude-sonnet-4-6');
    expect(closestModels('llama-3-70b', listed)).toEqual([]);
  });

  it('reads GET /models bodies, and nothing else', () => {
    expect(listedModels(answer(200, { object: 'list', data: [{ id: 'a' }, { id: 'b' }, { name: 'c' }] }))).toEqual(['a', 'b']);
    expect(listedModels(answer(404, { data: [{ id: 'a' }] }))).toBeUndefined();
    expect(listedModels(answer(200, '<html>'))).toBeUndefined();
  });
});
