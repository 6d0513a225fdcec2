// One endpoint for every model call: precedence flag > environment (> --env-file) > config file,
// provider/model selection, each value's origin, and problems whose messages name the fix.
import { describe, expect, it } from 'vitest';
import { defineCommand, keyFingerprint, UsageError, type CliSpec } from '@hermes-datagen/core';
import {
  describeEndpoint,
  endpointIdentity,
  endpointOptions,
  inspectEndpoint,
  resolveEndpoint,
  type EndpointArgs,
  type EndpointInspection,
} from '@hermes-datagen/core/endpoint';
import { modelProcessEnv } from '@hermes-datagen/core/internal/endpoint.js';
import { runInProcess, tempDir, writeFiles } from '../util/cli.js';

const KEY = 'sk-hermes-FAKE-endpoint-4242424242';
const OTHER_KEY = 'sk-hermes-FAKE-other-1313131313';

const YAML_CONFIG = `providers:
  taotoken:
    type: openai
    base_url: https://taotoken.example/api
    api_key_env: TAOTOKEN_API_KEY
  local:
    base_url: http://127.0.0.1:8000/v1
default_model: taotoken/anthropic/claude-sonnet-4-6
`;

function inspect(args: EndpointArgs, env: Record<string, string | undefined>, cwd = tempDir()): Promise<EndpointInspection> {
  return inspectEndpoint(args, { env, cwd });
}

function problemIds(inspection: EndpointInspection): string[] {
  return inspection.problems.map((p) => p.id);
}

function allText(inspection: EndpointInspection): string {
  return [...inspection.problems, ...inspection.warnings].map((f) => f.message).join('\n');
}

describe('precedence: flag > environment > config file', () => {
  const dir = (): string => {
    const d = tempDir();
    writeFiles(d, { 'hermes.yaml': YAML_CONFIG });
    return d;
  };
  const fullEnv = { HERMES_BASE_URL: 'https://env.example/api', HERMES_MODEL: 'env-model', HERMES_API_KEY: KEY, TAOTOKEN_API_KEY: OTHER_KEY };

  const table: { name: string; args: EndpointArgs; env: Record<string, string>; baseUrl: string; baseFrom: string; model: string; modelFrom: string }[] = [
    {
      name: 'flags beat everything',
      args: { baseUrl: 'https://flag.example/api/', model: 'flag-model', config: 'hermes.yaml' },
      env: fullEnv,
      baseUrl: 'https://flag.example/api',
      baseFrom: 'flag',
      model: 'flag-model',
      modelFrom: 'flag',
    },
    {
      name: 'HERMES_* beat the config file',
      args: { config: 'hermes.yaml' },
      env: fullEnv,
      baseUrl: 'https://env.example/api',
      baseFrom: 'env',
      model: 'env-model',
      modelFrom: 'env',
    },
    {
      name: 'OPENAI_BASE_URL when HERMES_BASE_URL is unset or empty',
      args: {},
      env: { HERMES_BASE_URL: '', OPENAI_BASE_URL: 'https://openai-var.example/v1', HERMES_MODEL: 'm', HERMES_API_KEY: KEY },
      baseUrl: 'https://openai-var.example/v1',
      baseFrom: 'env',
      model: 'm',
      modelFrom: 'env',
    },
    {
      name: 'the config file when nothing else is given',
      args: { config: 'hermes.yaml' },
      env: { TAOTOKEN_API_KEY: KEY },
      baseUrl: 'https://taotoken.example/api',
      baseFrom: 'config',
      model: 'anthropic/claude-sonnet-4-6',
      modelFrom: 'config',
    },
  ];

  for (const row of table) {
    it(row.name, async () => {
      const inspection = await inspect(row.args, row.env, dir());
      expect(inspection.problems).toEqual([]);
      const endpoint = inspection.endpoint!;
      expect(endpoint.baseUrl).toBe(row.baseUrl);
      expect(endpoint.origins.baseUrl.source).toBe(row.baseFrom);
      expect(endpoint.model).toBe(row.model);
      expect(endpoint.origins.model.source).toBe(row.modelFrom);
    });
  }

  it('names each origin exactly', async () => {
    const endpoint = await resolveEndpoint({ config: 'hermes.yaml' }, { env: { TAOTOKEN_API_KEY: KEY }, cwd: dir() });
    expect(endpoint.origins).toEqual({
      baseUrl: { source: 'config', name: 'providers.taotoken.base_url in hermes.yaml' },
      model: { source: 'config', name: 'default_model in hermes.yaml' },
      apiKeyEnv: { source: 'config', name: 'providers.taotoken.api_key_env in hermes.yaml' },
      apiKey: { source: 'env', name: 'TAOTOKEN_API_KEY' },
    });
    expect(endpoint.apiKeyEnv).toBe('TAOTOKEN_API_KEY');
  });

  it('--api-key-env beats the provider, and the default is HERMES_API_KEY', async () => {
    const flagged = await resolveEndpoint({ config: 'hermes.yaml', apiKeyEnv: 'MY_KEY' }, { env: { MY_KEY: KEY }, cwd: dir() });
    expect(flagged.apiKeyEnv).toBe('MY_KEY');
    expect(flagged.origins.apiKeyEnv.source).toBe('flag');
    const plain = await resolveEndpoint({ baseUrl: 'http://x.example', model: 'm' }, { env: { HERMES_API_KEY: KEY }, cwd: dir() });
    expect(plain.apiKeyEnv).toBe('HERMES_API_KEY');
    expect(plain.origins.apiKeyEnv.source).toBe('default');
    expect(plain.apiKey.reveal()).toBe(KEY);
  });

  it('falls back to OPENAI_API_KEY only for the default variable', async () => {
    const fallback = await resolveEndpoint({ baseUrl: 'http://x.example', model: 'm' }, { env: { OPENAI_API_KEY: KEY }, cwd: dir() });
    expect(fallback.apiKeyEnv).toBe('OPENAI_API_KEY');
    expect(fallback.apiKey.reveal()).toBe(KEY);
    // A variable named on purpose that is unset is an error, not a reason to use some other key.
    const named = await inspect({ baseUrl: 'http://x.example', model: 'm', apiKeyEnv: 'TAOTOKEN_API_KEY' }, { OPENAI_API_KEY: KEY });
    expect(problemIds(named)).toEqual(['key-unset']);
    expect(named.problems[0]!.message).toContain('$TAOTOKEN_API_KEY (named by --api-key-env) is not set');
  });
});

describe('provider/model', () => {
  const config = (text = YAML_CONFIG, name = 'hermes.yaml'): string => {
    const d = tempDir();
    writeFiles(d, { [name]: text });
    return d;
  };

  it('a first part naming a provider selects it, and the rest is sent upstream', async () => {
    const endpoint = await resolveEndpoint({ config: 'hermes.yaml', model: 'local/qwen/qwen3-8b' }, { env: { HERMES_API_KEY: KEY }, cwd: config() });
    expect(endpoint.provider).toBe('local');
    expect(endpoint.modelId).toBe('local/qwen/qwen3-8b');
    expect(endpoint.model).toBe('qwen/qwen3-8b');
    expect(endpoint.baseUrl).toBe('http://127.0.0.1:8000/v1');
  });

  it('a first part naming no provider is sent as is', async () => {
    const endpoint = await resolveEndpoint(
      { baseUrl: 'https://g.example/api', model: 'anthropic/claude-sonnet-4-6' },
      { env: { HERMES_API_KEY: KEY }, cwd: tempDir() },
    );
    expect(endpoint.provider).toBeUndefined();
    expect(endpoint.model).toBe('anthropic/claude-sonnet-4-6');
  });

  it('a config with one provider uses it for an unprefixed model', async () => {
    const one = 'providers:\n  gw:\n    base_url: https://gw.example/api\n    api_key_env: GW_KEY\n';
    const endpoint = await resolveEndpoint(
      { config: 'one.yaml', model: 'anthropic/claude-sonnet-4-6' },
      { env: { GW_KEY: KEY }, cwd: config(one, 'one.yaml') },
    );
    expect(endpoint.provider).toBe('gw');
    expect(endpoint.model).toBe('anthropic/claude-sonnet-4-6');
    expect(endpoint.baseUrl).toBe('https://gw.example/api');
  });

  it('with several providers, an unprefixed model says how to name one', async () => {
    const inspection = await inspect({ config: 'hermes.yaml', model: 'gpt-4o' }, { HERMES_API_KEY: KEY }, config());
    expect(problemIds(inspection)).toEqual(['base-url-missing']);
    expect(inspection.problems[0]!.message).toContain('write it as taotoken/gpt-4o');
  });

  it('a provider with no model after it is an error', async () => {
    const inspection = await inspect({ config: 'hermes.yaml', model: 'taotoken/' }, { TAOTOKEN_API_KEY: KEY }, config());
    expect(problemIds(inspection)).toEqual(['model-invalid']);
    expect(inspection.problems[0]!.message).toContain('write taotoken/MODEL');
  });

  it('reads the same configuration from JSON', async () => {
    const json = JSON.stringify({
      providers: { taotoken: { type: 'openai', base_url: 'https://taotoken.example/api', api_key_env: 'TAOTOKEN_API_KEY' } },
      default_model: 'taotoken/anthropic/claude-sonnet-4-6',
    });
    const endpoint = await resolveEndpoint({ config: 'hermes.json' }, { env: { TAOTOKEN_API_KEY: KEY }, cwd: config(json, 'hermes.json') });
    expect([endpoint.provider, endpoint.model, endpoint.baseUrl]).toEqual(['taotoken', 'anthropic/claude-sonnet-4-6', 'https://taotoken.example/api']);
  });
});

describe('--env-file', () => {
  it('fills variables the environment lacks, and is never read unless named', async () => {
    const dir = tempDir();
    writeFiles(dir, { '.env': `export HERMES_BASE_URL=https://file.example/api\nHERMES_MODEL="file-model"\nHERMES_API_KEY=${KEY}\n` });
    const endpoint = await resolveEndpoint({ envFile: '.env' }, { env: {}, cwd: dir });
    expect(endpoint.baseUrl).toBe('https://file.example/api');
    expect(endpoint.origins.apiKey).toEqual({ source: 'env-file', name: 'HERMES_API_KEY in .env' });
    const without = await inspect({}, {}, dir);
    expect(problemIds(without)).toEqual(['model-missing', 'base-url-missing', 'key-unset']);
  });

  it('an exported variable wins over the file, with a warning that shows fingerprints, not keys', async () => {
    const dir = tempDir();
    writeFiles(dir, { '.env': `HERMES_API_KEY=${OTHER_KEY}\nHERMES_MODEL=file-model\n` });
    const inspection = await inspect({ envFile: '.env', baseUrl: 'http://x.example' }, { HERMES_API_KEY: KEY, HERMES_MODEL: 'env-model' }, dir);
    expect(inspection.endpoint?.apiKey.reveal()).toBe(KEY);
    expect(inspection.endpoint?.model).toBe('env-model');
    const overridden = inspection.warnings.filter((w) => w.id === 'env-file-overridden').map((w) => w.message);
    expect(overridden).toHaveLength(2);
    expect(overridden.join('\n')).toContain(`key ${keyFingerprint(KEY)}`);
    expect(overridden.join('\n')).toContain(`key ${keyFingerprint(OTHER_KEY)}`);
    expect(overridden.join('\n')).toContain('"file-model"');
    expect(allText(inspection)).not.toContain(KEY);
    expect(allText(inspection)).not.toContain(OTHER_KEY);
  });

  it('an unreadable file is a problem that names it', async () => {
    const inspection = await inspect({ envFile: 'missing.env', baseUrl: 'http://x.example', model: 'm' }, { HERMES_API_KEY: KEY });
    expect(problemIds(inspection)).toEqual(['env-file-unreadable']);
    expect(inspection.problems[0]!.message).toContain('cannot read --env-file missing.env (ENOENT)');
  });
});

describe('config file errors', () => {
  const cases: { name: string; file: string; text: string; message: string }[] = [
    { name: 'invalid YAML', file: 'c.yaml', text: 'providers: [unclosed', message: '--config c.yaml: not valid YAML' },
    { name: 'invalid JSON', file: 'c.json', text: '{"providers": ', message: '--config c.json: not valid JSON' },
    { name: 'not a mapping', file: 'c.yaml', text: '- a\n- b\n', message: 'expected a mapping with providers: and default_model:' },
    {
      name: 'a key written into the file',
      file: 'c.yaml',
      text: `providers:\n  gw:\n    base_url: https://g.example\n    api_key: ${KEY}\n`,
      message: 'at providers.gw.api_key: never write the key into a config file',
    },
    {
      name: 'a misspelt provider key',
      file: 'c.yaml',
      text: 'providers:\n  gw:\n    baseurl: https://g.example\n',
      message: 'unknown key baseurl; a provider has base_url, api_key_env, type, auth_mode',
    },
    {
      name: 'a provider type other than openai',
      file: 'c.yaml',
      text: 'providers:\n  gw:\n    type: anthropic\n',
      message: 'at providers.gw.type: only "openai"',
    },
    { name: 'an OAuth auth_mode', file: 'c.yaml', text: 'auth_mode: oauth\n', message: 'only auth_mode: api_key is supported' },
    {
      name: 'a base_url that is not a string',
      file: 'c.yaml',
      text: 'providers:\n  gw:\n    base_url: [1]\n',
      message: 'at providers.gw.base_url: expected a string, got a list',
    },
    { name: 'a missing file', file: 'absent.yaml', text: '', message: 'cannot read --config absent.yaml (ENOENT)' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir();
      if (c.file !== 'absent.yaml') writeFiles(dir, { [c.file]: c.text });
      const inspection = await inspect({ config: c.file, baseUrl: 'http://x.example', model: 'm' }, { HERMES_API_KEY: KEY }, dir);
      expect(problemIds(inspection)).toEqual(['config-invalid']);
      expect(inspection.problems[0]!.message).toContain(c.message);
      expect(allText(inspection)).not.toContain(KEY);
    });
  }

  it('leaves top-level sections of other commands alone', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'c.yaml': `${YAML_CONFIG}compression:\n  target_max_tokens: 15250\n` });
    const inspection = await inspect({ config: 'c.yaml' }, { TAOTOKEN_API_KEY: KEY }, dir);
    expect(inspection.problems).toEqual([]);
  });
});

describe('problems with the key, base URL and model', () => {
  const base = { baseUrl: 'https://g.example/api', model: 'm' };

  it('an unset key says to export it and warns about background starts', async () => {
    const inspection = await inspect(base, {});
    expect(problemIds(inspection)).toEqual(['key-unset']);
    expect(inspection.problems[0]!.message).toMatch(/\$HERMES_API_KEY \(or OPENAI_API_KEY\) is not set: export HERMES_API_KEY=\.\.\. .*nohup/);
  });

  it('an empty key', async () => {
    const inspection = await inspect(base, { HERMES_API_KEY: '' });
    expect(problemIds(inspection)).toEqual(['key-empty']);
    expect(inspection.problems[0]!.message).toContain('$HERMES_API_KEY is set but empty');
  });

  for (const [kind, key] of [
    ['ends with a newline', `${KEY}\n`],
    ['ends with a space', `${KEY} `],
    ['starts with whitespace', ` ${KEY}`],
    ['contains whitespace', 'sk-a b'],
  ] as const) {
    it(`a key that ${kind}`, async () => {
      const inspection = await inspect(base, { HERMES_API_KEY: key });
      expect(problemIds(inspection)).toEqual(['key-whitespace']);
      expect(inspection.problems[0]!.message).toContain(`the API key in $HERMES_API_KEY ${kind}`);
      expect(inspection.problems[0]!.message).toContain("tr -d '[:space:]'");
      expect(allText(inspection)).not.toContain(KEY);
    });
  }

  it('a key with typographic quotes', async () => {
    const inspection = await inspect(base, { HERMES_API_KEY: `“${KEY}”` });
    expect(problemIds(inspection)).toEqual(['key-invalid-characters']);
    expect(allText(inspection)).not.toContain(KEY);
  });

  it('the key pasted where the variable name belongs is refused without being echoed', async () => {
    const inspection = await inspect({ ...base, apiKeyEnv: KEY }, { HERMES_API_KEY: KEY });
    expect(problemIds(inspection)).toEqual(['api-key-env-invalid']);
    expect(inspection.problems[0]!.message).toContain('must be the NAME of an environment variable');
    expect(allText(inspection)).not.toContain(KEY);
  });

  it('a base URL with tracking parameters names them and gives the clean URL', async () => {
    const inspection = await inspect({ ...base, baseUrl: 'https://g.example/api/?utm_source=chat&utm_medium=x' }, { HERMES_API_KEY: KEY });
    expect(problemIds(inspection)).toEqual(['base-url-query']);
    expect(inspection.problems[0]!.message).toContain('has query parameters (utm_source, utm_medium)');
    expect(inspection.problems[0]!.message).toContain('use https://g.example/api');
  });

  it('a base URL with credentials is refused without echoing them', async () => {
    const inspection = await inspect({ ...base, baseUrl: 'https://user:hunter2@g.example/api' }, { HERMES_API_KEY: KEY });
    expect(problemIds(inspection)).toEqual(['base-url-credentials']);
    expect(allText(inspection)).not.toContain('hunter2');
  });

  it('a base URL without a scheme or with another scheme', async () => {
    expect(problemIds(await inspect({ ...base, baseUrl: 'g.example/api' }, { HERMES_API_KEY: KEY }))).toEqual(['base-url-invalid']);
    expect(problemIds(await inspect({ ...base, baseUrl: 'ftp://g.example/api' }, { HERMES_API_KEY: KEY }))).toEqual(['base-url-invalid']);
  });

  it('a model id with whitespace', async () => {
    expect(problemIds(await inspect({ ...base, model: 'gpt 4o' }, { HERMES_API_KEY: KEY }))).toEqual(['model-invalid']);
  });

  it('a socks proxy for the base URL is unsupported, with the fix', async () => {
    const inspection = await inspect(base, { HERMES_API_KEY: KEY, all_proxy: 'socks5://127.0.0.1:1080' });
    expect(problemIds(inspection)).toEqual(['proxy-unsupported']);
    expect(inspection.problems[0]!.message).toContain('set https_proxy=http://HOST:PORT');
  });

  it('resolveEndpoint throws one UsageError listing every problem', async () => {
    const error = await resolveEndpoint({}, { env: {}, cwd: tempDir() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/has 3 problems:\n {2}- no model: .*\n {2}- no base URL: .*\n {2}- no API key: /);
    const single = await resolveEndpoint(base, { env: {}, cwd: tempDir() }).catch((e: unknown) => e);
    expect((single as UsageError).message).toMatch(/^no API key: /);
  });
});

describe('warnings', () => {
  it('both OPENAI_* and ANTHROPIC_* set: choose one', async () => {
    const inspection = await inspect(
      { baseUrl: 'http://x.example', model: 'm' },
      { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: OTHER_KEY, ANTHROPIC_BASE_URL: 'https://a.example' },
    );
    const warning = inspection.warnings.find((w) => w.id === 'openai-and-anthropic');
    expect(warning?.message).toContain('OPENAI_* (OPENAI_API_KEY) and ANTHROPIC_* (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)');
    expect(warning?.message).toContain('choose one');
    expect(allText(inspection)).not.toContain(OTHER_KEY);
  });

  it('an environment base URL that overrides the config provider', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'hermes.yaml': YAML_CONFIG });
    const inspection = await inspect({ config: 'hermes.yaml' }, { TAOTOKEN_API_KEY: KEY, OPENAI_BASE_URL: 'https://stale.example/v1' }, dir);
    expect(inspection.endpoint?.baseUrl).toBe('https://stale.example/v1');
    expect(inspection.warnings.map((w) => w.id)).toEqual(['config-overridden']);
    expect(inspection.warnings[0]!.message).toContain('OPENAI_BASE_URL (https://stale.example/v1) overrides providers.taotoken.base_url in hermes.yaml');
  });
});

describe('what may be shown, and what a model child gets', () => {
  const resolve = () =>
    resolveEndpoint(
      { baseUrl: 'https://gw.example:8443/api', model: 'anthropic/claude-sonnet-4-6', apiKeyEnv: 'TAOTOKEN_API_KEY' },
      { env: { TAOTOKEN_API_KEY: KEY, https_proxy: 'http://u:p@127.0.0.1:7890' }, cwd: tempDir() },
    );

  it('describeEndpoint shows host, model, variable, fingerprint and proxy, never the key', async () => {
    const endpoint = await resolve();
    const line = describeEndpoint(endpoint);
    expect(line).toBe(
      `gw.example:8443, model anthropic/claude-sonnet-4-6, key $TAOTOKEN_API_KEY (fingerprint ${keyFingerprint(KEY)}), via https_proxy=http://127.0.0.1:7890`,
    );
    expect(JSON.stringify(endpoint)).not.toContain(KEY);
    expect(endpointIdentity(endpoint)).toEqual({
      endpoint_host: 'gw.example:8443',
      model: 'anthropic/claude-sonnet-4-6',
      key_fingerprint: keyFingerprint(KEY),
    });
  });

  it('modelProcessEnv gives the one endpoint under every name a child reads, and drops other providers', async () => {
    const endpoint = await resolve();
    const env = modelProcessEnv(endpoint, {
      PATH: '/usr/bin',
      ANTHROPIC_API_KEY: OTHER_KEY,
      ANTHROPIC_BASE_URL: 'https://a.example',
      https_proxy: 'http://127.0.0.1:7890',
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      https_proxy: 'http://127.0.0.1:7890',
      TAOTOKEN_API_KEY: KEY,
      HERMES_BASE_URL: 'https://gw.example:8443/api',
      HERMES_MODEL: 'anthropic/claude-sonnet-4-6',
      HERMES_API_KEY: KEY,
      OPENAI_BASE_URL: 'https://gw.example:8443/api',
      OPENAI_API_KEY: KEY,
    });
    // A child that resolves from that environment alone lands on the same endpoint.
    const child = await resolveEndpoint({}, { env, cwd: tempDir() });
    expect([child.baseUrl, child.model, child.apiKey.fingerprint]).toEqual([endpoint.baseUrl, endpoint.model, endpoint.apiKey.fingerprint]);
  });
});

describe('endpointOptions', () => {
  it('adds the five flags, which resolveEndpoint takes as they are parsed', async () => {
    let seen = '';
    const spec: CliSpec = {
      name: 'hermes-endpoint-test',
      summary: 'prints the resolved endpoint',
      commands: [
        defineCommand({
          command: '$0',
          describe: 'resolve',
          options: (y) => endpointOptions(y),
          run: async (args, ctx) => {
            seen = describeEndpoint(await resolveEndpoint(args, ctx.io));
          },
        }),
      ],
    };
    const dir = tempDir();
    writeFiles(dir, { 'k.env': `GW_KEY=${KEY}\n`, 'c.yaml': YAML_CONFIG });
    const result = await runInProcess(
      spec,
      ['--base-url', 'https://flag.example/api', '--model', 'taotoken/m', '--api-key-env', 'GW_KEY', '--config', 'c.yaml', '--env-file', 'k.env'],
      { cwd: dir, env: {} },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen).toBe(`flag.example, model taotoken/m, key $GW_KEY (fingerprint ${keyFingerprint(KEY)})`);
    const help = await runInProcess(spec, ['--help']);
    expect(help.stdout).toMatch(/Endpoint options:\n\s+--base-url[\s\S]*--model[\s\S]*--api-key-env[\s\S]*--config[\s\S]*--env-file/);
  });
});
