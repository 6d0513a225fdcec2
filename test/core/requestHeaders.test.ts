// --header and a provider's headers: resolved with the endpoint: a flag over the config's header of
// the same name, ${VAR} read from the environment, a secret one never written into a config file,
// names the client sets itself refused, and a secret value held so that nothing serialises it.
import { inspect as nodeInspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { keyFingerprint, redact } from '@hermes-datagen/core';
import { holdsSecret } from '@hermes-datagen/core/internal/secrets.js';
import { describeEndpoint, headerValues, inspectEndpoint, type EndpointArgs } from '@hermes-datagen/core/endpoint';
import { isSecretHeader } from '@hermes-datagen/core/internal/requestHeaders.js';
import { tempDir, writeFiles } from '../util/cli.js';

const KEY = 'sk-hermes-FAKE-endpoint-4242424242';
const HEADER_SECRET = 'pk-FAKE-portkey-header-secret-777';

function inspect(args: EndpointArgs, config?: string, env: Record<string, string> = {}) {
  const cwd = tempDir();
  if (config !== undefined) writeFiles(cwd, { 'hermes.yaml': config });
  return inspectEndpoint(
    { baseUrl: 'http://127.0.0.1:9/v1', model: 'portkey/gpt-4o', ...(config === undefined ? {} : { config: 'hermes.yaml' }), ...args },
    { env: { HERMES_API_KEY: KEY, ...env }, cwd },
  );
}

/** How a config file names an environment variable's value. */
const REFERENCE = `\${PORTKEY_API_KEY}`;

const CONFIG = `providers:
  portkey:
    base_url: http://127.0.0.1:8787/v1
    headers:
      x-portkey-provider: openai
      x-portkey-api-key: \${PORTKEY_API_KEY}
`;

describe('request headers', () => {
  it('--header values, repeatable, as sent', async () => {
    const { endpoint } = await inspect({ header: ['x-portkey-provider: openai', 'HTTP-Referer:  https://example.org '] });
    expect(headerValues(endpoint!.headers)).toEqual({ 'x-portkey-provider': 'openai', 'HTTP-Referer': 'https://example.org' });
  });

  it("the provider's headers, a variable's value from the environment, and a flag over the header of the same name", async () => {
    const { endpoint, problems } = await inspect({ header: ['X-Portkey-Provider: anthropic'] }, CONFIG, { PORTKEY_API_KEY: HEADER_SECRET });
    expect(problems).toEqual([]);
    expect(headerValues(endpoint!.headers)).toEqual({ 'x-portkey-api-key': HEADER_SECRET, 'X-Portkey-Provider': 'anthropic' });
    expect(endpoint!.headers.find((h) => h.name === 'x-portkey-api-key')?.origin.name).toBe('providers.portkey.headers.x-portkey-api-key in hermes.yaml');
  });

  it('a secret value is registered, so every redact removes it, and never serialised', async () => {
    const { endpoint } = await inspect({ header: [`x-api-key: ${HEADER_SECRET}`, 'x-title: demo'] });
    expect(redact(`echo ${HEADER_SECRET} and ${KEY}`)).toBe(`echo [secret ${keyFingerprint(HEADER_SECRET)}] and [api key ${keyFingerprint(KEY)}]`);
    expect(holdsSecret(`base64 of it: ${Buffer.from(HEADER_SECRET).toString('base64')}`)).toBe(true);
    expect(holdsSecret('x-title: demo')).toBe(false);
    for (const text of [JSON.stringify(endpoint), nodeInspect(endpoint, { depth: 9 }), describeEndpoint(endpoint!)]) expect(text).not.toContain(HEADER_SECRET);
    expect(describeEndpoint(endpoint!)).toContain(`x-api-key: [secret ${keyFingerprint(HEADER_SECRET)}], x-title: demo`);
  });

  it.each([
    [['no colon here'], 'is not "Name: value"'],
    [['bad name: x'], 'is not a valid header name'],
    [['Authorization: Bearer other'], 'put the key in the variable named by api_key_env'],
    [['content-type: text/plain'], 'is set by hermes-generate itself'],
  ])('%j is refused', async (header, message) => {
    const { endpoint, problems } = await inspect({ header });
    expect(endpoint).toBeUndefined();
    expect(problems.map((p) => p.id)).toEqual(['header-invalid']);
    expect(problems[0]?.message).toContain(message);
  });

  it('a secret header written into a config file is refused, and an unset variable named', async () => {
    const literal = await inspect({}, CONFIG.replace(REFERENCE, HEADER_SECRET));
    expect(literal.problems[0]?.message).toContain('never write a secret into a config file');
    expect(JSON.stringify(literal.problems)).not.toContain(HEADER_SECRET);
    const unset = await inspect({}, CONFIG);
    expect(unset.problems[0]?.message).toContain(`is ${REFERENCE}, but $PORTKEY_API_KEY is not set`);
  });
});

describe('isSecretHeader', () => {
  it.each(['Authorization', 'x-api-key', 'api-key', 'x-portkey-api-key', 'x-portkey-virtual-key', 'x-auth-token', 'X-Client-Secret', 'cookie'])(
    '%s is secret',
    (name) => {
      expect(isSecretHeader(name)).toBe(true);
    },
  );
  it.each(['x-portkey-provider', 'x-portkey-custom-host', 'HTTP-Referer', 'X-Title', 'openai-organization'])('%s is not', (name) => {
    expect(isSecretHeader(name)).toBe(false);
  });
});
