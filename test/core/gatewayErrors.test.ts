// The gateway-error table (core gatewayErrors.ts) against the real bodies it was written from
// (fixtures/gateway-errors/dialects.json, each with its source), and against answers it must leave to
// the generic diagnosis: each row's class, and that only a rate limit is worth a retry.
import { readFileSync } from 'node:fs';
import { APIError } from 'openai/core/error';
import { describe, expect, it } from 'vitest';
import { clientRetries } from '@hermes-datagen/core/internal/chatClient.js';
import { GATEWAY_DIALECTS, gatewayErrorFields, readGatewayError } from '@hermes-datagen/core/internal/gatewayErrors.js';
import { REPO_ROOT } from '../util/cli.js';
import { DIALECT_FIXTURES } from '../util/gatewayDialects.js';

describe('readGatewayError', () => {
  it.each(DIALECT_FIXTURES)('$gateway $status ($dialect) is $kind', ({ status, body, dialect, kind }) => {
    const read = readGatewayError(status, body);
    expect(read).toMatchObject({ dialect, kind, retry: kind === 'rate-limited' });
    expect(read?.fix).not.toBe('');
  });

  it('has a fixture for every row of the table', () => {
    expect(new Set(DIALECT_FIXTURES.map((f) => f.dialect))).toEqual(new Set(GATEWAY_DIALECTS.map((row) => row.dialect)));
  });

  it.each([
    ['a plain rate limit', 429, { error: { message: 'Rate limit reached for requests', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }],
    ['a refused key', 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } }],
    ['another 400', 400, { error: { message: 'Invalid value for temperature', type: 'invalid_request_error', code: null } }],
    ['a 200', 200, { error: { code: 'insufficient_quota' } }],
    ['no body', 500, undefined],
  ])('leaves %s to the generic diagnosis', (_, status, body) => {
    expect(readGatewayError(status, body)).toBeUndefined();
  });

  it('names the parameter an UnsupportedParamsError names, and the flag that sends it', () => {
    const read = readGatewayError(400, {
      error: { message: "litellm.UnsupportedParamsError: vertex_ai does not support parameters: ['reasoning_effort'], for model=gemini-2.5-pro." },
    });
    expect(read?.meaning).toContain(': reasoning_effort');
    expect(read?.fix).toContain('--reasoning-effort');
    const tools = readGatewayError(400, { error: { message: "litellm.UnsupportedParamsError: x does not support parameters: ['tools', 'tool_choice']" } });
    expect(tools?.meaning).toContain('tools, tool_choice');
    expect(tools?.fix).toContain('--toolsets');
  });

  it('names the header Portkey asks for in its --header fix', () => {
    const config = readGatewayError(400, { status: 'failure', message: 'x-portkey-config header is required' });
    expect(config?.fix).toContain("--header 'x-portkey-config: CONFIG_ID'");
    const either = readGatewayError(400, { status: 'failure', message: 'Either x-portkey-config or x-portkey-provider header is required' });
    expect(either?.meaning).toContain('x-portkey-config or x-portkey-provider');
    expect(either?.fix).toContain("--header 'x-portkey-provider: openai'");
  });

  it('names the upstream provider of an OpenRouter 429', () => {
    const read = readGatewayError(429, { error: { message: 'Provider returned error', code: 429, metadata: { provider_name: 'Chutes' } } });
    expect(read?.meaning).toContain('Chutes');
    expect(read?.fix).toContain('--rpm');
  });
});

describe('gatewayErrorFields', () => {
  it('reads the error wherever the gateway put it', () => {
    expect(gatewayErrorFields({ error: 'Invalid model name passed in' }).message).toBe('Invalid model name passed in');
    expect(gatewayErrorFields({ object: 'error', message: 'too long', type: 'BadRequestError', code: 400 })).toMatchObject({
      message: 'too long',
      code: '400',
    });
    expect(gatewayErrorFields({ error: { message: { error: 'inner text' } } }).message).toBe('inner text');
    expect(gatewayErrorFields({ detail: 'Not Found' }).message).toBe('Not Found');
    expect(gatewayErrorFields('plain text').message).toBe('plain text');
  });
});

describe('clientRetries follows the table', () => {
  const error = (status: number, body: object): APIError => APIError.generate(status, body, undefined, new Headers());

  it('never retries a billing 429, and still retries a rate limit', () => {
    expect(clientRetries(error(429, DIALECT_FIXTURES[0]!.body as object))).toBe(false);
    expect(clientRetries(error(429, { error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' } }))).toBe(true);
    expect(clientRetries(error(429, { error: { message: 'Provider returned error', code: 429, metadata: { provider_name: 'Chutes' } } }))).toBe(true);
  });
});

describe('docs/gateway-errors.md', () => {
  const doc = readFileSync(`${REPO_ROOT}docs/gateway-errors.md`, 'utf8');

  it('names every row of the table and cites every fixture', () => {
    for (const row of GATEWAY_DIALECTS) expect(doc).toContain(`\`${row.dialect}\``);
    for (const fixture of DIALECT_FIXTURES) {
      const address = /https:\/\/\S+/.exec(fixture.source)?.[0];
      if (address !== undefined) expect(doc).toContain(address.replace(/[,;)]$/, ''));
    }
  });
});
