// The endpoint part of a --config file (YAML or JSON): a `providers:` map and `default_model`.
// Other top-level sections belong to other commands and are left alone; inside a provider every key
// is checked, because a misspelt key there would silently send requests elsewhere.
import { loadOptionFile, optionFileError, type OptionFile } from './optionFile.js';
import { isPlainObject } from './plainObject.js';

export interface ProviderConfig {
  readonly name: string;
  readonly baseUrl: string | undefined;
  readonly apiKeyEnv: string | undefined;
  /** Sent on every model request through this provider; a value ${VAR} is read from the environment. */
  readonly headers: ReadonlyMap<string, string>;
}

export interface EndpointConfig {
  /** The path as given on the command line, for messages. */
  readonly path: string;
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  readonly defaultModel: string | undefined;
}

const PROVIDER_KEYS = ['base_url', 'api_key_env', 'type', 'auth_mode', 'headers'] as const;

export function readEndpointConfig(path: string, cwd: string): EndpointConfig {
  const file: OptionFile = { option: '--config', path, cwd };
  return endpointConfigOf(loadOptionFile(file, 'json-or-yaml'), file);
}

function endpointConfigOf(parsed: unknown, file: OptionFile): EndpointConfig {
  const fail = (where: string, problem: string): never => {
    throw optionFileError(file, problem, { at: where });
  };
  let root = parsed;
  if (root === null || root === undefined) root = {};
  if (!isPlainObject(root)) return fail('', 'expected a mapping with providers: and default_model:');
  checkAuthMode(root['auth_mode'], 'auth_mode', fail);
  rejectInlineKey(root, '', fail);

  const providers = new Map<string, ProviderConfig>();
  const declared = root['providers'];
  if (declared !== undefined && declared !== null) {
    if (!isPlainObject(declared)) fail('providers', 'expected a mapping of provider name to {base_url, api_key_env, type: openai}');
    for (const [name, entry] of Object.entries(declared as Record<string, unknown>)) {
      const where = `providers.${name}`;
      if (name === '' || name.includes('/')) fail(where, 'a provider name cannot be empty or contain "/" (it is the first part of provider/model)');
      if (!isPlainObject(entry)) return fail(where, 'expected a mapping with base_url and api_key_env');
      rejectInlineKey(entry, `${where}.`, fail);
      const unknown = Object.keys(entry).filter((key) => !(PROVIDER_KEYS as readonly string[]).includes(key));
      if (unknown.length > 0) fail(where, `unknown key ${unknown.join(', ')}; a provider has ${PROVIDER_KEYS.join(', ')}`);
      if (entry['type'] !== undefined && entry['type'] !== 'openai') {
        fail(`${where}.type`, `only "openai" (an OpenAI-compatible chat completions API) is supported, not ${JSON.stringify(entry['type'])}`);
      }
      checkAuthMode(entry['auth_mode'], `${where}.auth_mode`, fail);
      providers.set(name, {
        name,
        baseUrl: optionalString(entry['base_url'], `${where}.base_url`, fail),
        apiKeyEnv: optionalString(entry['api_key_env'], `${where}.api_key_env`, fail),
        headers: headersOf(entry['headers'], `${where}.headers`, fail),
      });
    }
  }
  return { path: file.path, providers, defaultModel: optionalString(root['default_model'], 'default_model', fail) };
}

type Fail = (where: string, problem: string) => never;

function headersOf(value: unknown, where: string, fail: Fail): ReadonlyMap<string, string> {
  if (value === undefined || value === null) return new Map();
  if (!isPlainObject(value)) return fail(where, 'expected a mapping of header name to value, e.g. x-portkey-provider: openai');
  return new Map(Object.entries(value).map(([name, text]) => [name, optionalString(text, `${where}.${name}`, fail) ?? '']));
}

function optionalString(value: unknown, where: string, fail: Fail): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return fail(where, `expected a string, got ${Array.isArray(value) ? 'a list' : typeof value}`);
  return value;
}

// Why refuse rather than ignore: a key written into a config file ends up in repositories and backups.
function rejectInlineKey(section: Record<string, unknown>, prefix: string, fail: Fail): void {
  for (const key of ['api_key', 'apiKey', 'key']) {
    if (section[key] !== undefined) {
      fail(
        `${prefix}${key}`,
        'never write the key into a config file: put it in an environment variable (or an --env-file) and name that variable in api_key_env',
      );
    }
  }
}

function checkAuthMode(value: unknown, where: string, fail: Fail): void {
  if (value !== undefined && value !== 'api_key') {
    fail(where, `only auth_mode: api_key is supported (an API key sent as a Bearer token), not ${JSON.stringify(value)}; OAuth tokens expire mid-run`);
  }
}
