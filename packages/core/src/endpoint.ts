// The one place that decides which endpoint every model call of the project uses: base URL, API key
// and model id, for the main agent, sub-agents and the compression summariser alike (requirement A:
// a level that reads another source fails with 401 or silently uses a stale key).
// Precedence: command-line flag > environment (an --env-file fills gaps) > config file > default.
// Each value remembers where it came from, so errors and doctor can say which source to fix.
import type { Argv } from 'yargs';
import { readEndpointConfig, type EndpointConfig, type ProviderConfig } from './configFile.js';
import { loadEnvFile, type EnvFile } from './envFile.js';
import { UsageError } from './errors.js';
import { describeProxy, proxyFor, type ProxyVariable } from './proxy.js';
import { ApiKey, keyFingerprint } from './secrets.js';

export type ValueSource = 'flag' | 'env' | 'env-file' | 'config' | 'default';

export interface Origin {
  readonly source: ValueSource;
  /** Where exactly: `--model`, `HERMES_MODEL`, `HERMES_API_KEY in .env`, `providers.taotoken.base_url in hermes.yaml`. */
  readonly name: string;
}

export interface Sourced<T> {
  readonly value: T;
  readonly origin: Origin;
}

/** The endpoint flags, as yargs gives them to a command that spreads endpointOptions. */
export interface EndpointArgs {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  config?: string;
  envFile?: string;
}

export interface EndpointIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export const DEFAULT_API_KEY_ENV = 'HERMES_API_KEY';

export type EndpointProblemId =
  | 'config-invalid'
  | 'env-file-unreadable'
  | 'base-url-missing'
  | 'base-url-invalid'
  | 'base-url-query'
  | 'base-url-credentials'
  | 'model-missing'
  | 'model-invalid'
  | 'api-key-env-invalid'
  | 'key-unset'
  | 'key-empty'
  | 'key-whitespace'
  | 'key-invalid-characters'
  | 'proxy-unsupported';

export type EndpointWarningId = 'openai-and-anthropic' | 'env-file-overridden' | 'config-overridden';

/** A finding with a stable id (for doctor --json and tests) and a message that ends with the fix. */
export interface Finding<Id extends string> {
  readonly id: Id;
  readonly message: string;
}

export interface Endpoint {
  /** Without a trailing slash; the client appends /chat/completions. */
  readonly baseUrl: string;
  /** host[:port] of the base URL: what records and logs name. */
  readonly host: string;
  /** The model id as configured, provider prefix included (`taotoken/anthropic/claude-sonnet-4-6`). */
  readonly modelId: string;
  /** The model name sent upstream (`anthropic/claude-sonnet-4-6`). */
  readonly model: string;
  /** The config provider the model id selected, if any. */
  readonly provider: string | undefined;
  readonly apiKey: ApiKey;
  /** The variable the key was read from (a name, never the key): api_key_env's, or OPENAI_API_KEY in its place. */
  readonly apiKeyEnv: string;
  /** The proxy variable requests go through, if one applies to the base URL. */
  readonly proxy: ProxyVariable | undefined;
  readonly origins: { readonly baseUrl: Origin; readonly model: Origin; readonly apiKeyEnv: Origin; readonly apiKey: Origin };
  /** Worth logging once at the start of a run. */
  readonly warnings: readonly Finding<EndpointWarningId>[];
}

/** Everything resolution found, including what is wrong: doctor reports it whole. */
export interface EndpointInspection {
  readonly baseUrl: Sourced<string> | undefined;
  readonly modelId: Sourced<string> | undefined;
  readonly model: string | undefined;
  readonly provider: string | undefined;
  readonly apiKeyEnv: Sourced<string>;
  readonly apiKey: Sourced<ApiKey> | undefined;
  readonly proxy: ProxyVariable | undefined;
  /** The environment the values were read from: the process's, over the --env-file's. */
  readonly env: Readonly<Record<string, string>>;
  readonly problems: readonly Finding<EndpointProblemId>[];
  readonly warnings: readonly Finding<EndpointWarningId>[];
  /** Present exactly when there are no problems. */
  readonly endpoint: Endpoint | undefined;
}

const ENDPOINT_GROUP = 'Endpoint options:';

/** The endpoint flags, defined once: every command that calls a model adds them with this. */
export function endpointOptions<T>(y: Argv<T>): Argv<T & EndpointArgs> {
  return y
    .option('base-url', {
      type: 'string',
      describe: 'OpenAI-compatible base URL, e.g. https://gateway.example.com/api (default: $HERMES_BASE_URL, $OPENAI_BASE_URL, then --config)',
      group: ENDPOINT_GROUP,
    })
    .option('model', {
      type: 'string',
      describe: 'model id; provider/model picks a provider of --config (default: $HERMES_MODEL, then default_model)',
      group: ENDPOINT_GROUP,
    })
    .option('api-key-env', {
      type: 'string',
      describe: `NAME of the variable holding the API key, never the key itself (default: the provider's api_key_env, then ${DEFAULT_API_KEY_ENV}, then OPENAI_API_KEY)`,
      group: ENDPOINT_GROUP,
    })
    .option('config', {
      type: 'string',
      describe: 'YAML or JSON file with providers: {NAME: {base_url, api_key_env, type: openai}} and default_model',
      group: ENDPOINT_GROUP,
    })
    .option('env-file', {
      type: 'string',
      describe: 'read variables from this .env file (never read unless named; exported variables win)',
      group: ENDPOINT_GROUP,
    }) as unknown as Argv<T & EndpointArgs>;
}

/** Environment entries for the --help of a CLI that calls a model. */
export const ENDPOINT_ENV_HELP: readonly (readonly [string, string])[] = [
  ['HERMES_BASE_URL', 'base URL of the OpenAI-compatible endpoint (OPENAI_BASE_URL if unset)'],
  ['HERMES_MODEL', 'model id'],
  [DEFAULT_API_KEY_ENV, 'API key, unless --api-key-env names another variable (OPENAI_API_KEY if unset)'],
];

/** The endpoint every model call uses; a UsageError naming each problem and its fix otherwise. */
export async function resolveEndpoint(args: EndpointArgs, io: EndpointIo): Promise<Endpoint> {
  const inspection = await inspectEndpoint(args, io);
  if (inspection.endpoint) return inspection.endpoint;
  const [first, ...rest] = inspection.problems;
  if (rest.length === 0 && first) throw new UsageError(first.message);
  throw new UsageError(
    `the endpoint configuration has ${inspection.problems.length} problems:\n${inspection.problems.map((p) => `  - ${p.message}`).join('\n')}`,
  );
}

export async function inspectEndpoint(args: EndpointArgs, io: EndpointIo): Promise<EndpointInspection> {
  const problems: Finding<EndpointProblemId>[] = [];
  const warnings: Finding<EndpointWarningId>[] = [];
  let envFile: EnvFile | undefined;
  if (args.envFile !== undefined) {
    try {
      envFile = loadEnvFile(args.envFile, io.cwd);
    } catch (err) {
      problems.push({ id: 'env-file-unreadable', message: (err as Error).message });
    }
  }
  let config: EndpointConfig | undefined;
  if (args.config !== undefined) {
    try {
      config = readEndpointConfig(args.config, io.cwd);
    } catch (err) {
      problems.push({ id: 'config-invalid', message: (err as Error).message });
    }
  }
  const env = new Environment(io.env, envFile);

  const modelId = firstGiven(fromFlag('--model', args.model), env.get('HERMES_MODEL'), fromConfig(config, 'default_model', config?.defaultModel));
  const selection = selectProvider(modelId?.value, config);
  const provider = selection.provider;
  const providerBaseUrl = provider && fromConfig(config, `providers.${provider.name}.base_url`, provider.baseUrl);
  const baseUrl = firstGiven(fromFlag('--base-url', args.baseUrl), env.get('HERMES_BASE_URL'), env.get('OPENAI_BASE_URL'), providerBaseUrl);
  const apiKeyEnv = firstGiven(
    fromFlag('--api-key-env', args.apiKeyEnv),
    provider && fromConfig(config, `providers.${provider.name}.api_key_env`, provider.apiKeyEnv),
  ) ?? { value: DEFAULT_API_KEY_ENV, origin: { source: 'default', name: 'the default' } };

  if (!modelId) {
    problems.push({ id: 'model-missing', message: 'no model: pass --model ID, export HERMES_MODEL, or set default_model in --config' });
  } else if (selection.problem) {
    problems.push({ id: 'model-invalid', message: selection.problem });
  }
  const checkedBaseUrl = baseUrl && checkBaseUrl(baseUrl, problems);
  if (!baseUrl) problems.push({ id: 'base-url-missing', message: missingBaseUrlMessage(modelId, config) });
  if (baseUrl && providerBaseUrl && baseUrl.origin.source !== 'flag' && baseUrl.value !== providerBaseUrl.value) {
    warnings.push({
      id: 'config-overridden',
      message: `${baseUrl.origin.name} (${baseUrl.value}) overrides ${providerBaseUrl.origin.name} (${providerBaseUrl.value}): the environment wins over the config file; unset ${baseUrl.origin.name} to use the provider`,
    });
  }

  const apiKey = readKey(apiKeyEnv, env, problems);
  const proxy = checkedBaseUrl ? checkProxy(checkedBaseUrl, env.merged, problems) : undefined;
  warnings.push(...env.overriddenFileValues([apiKeyEnv.value, 'OPENAI_API_KEY', 'HERMES_BASE_URL', 'OPENAI_BASE_URL', 'HERMES_MODEL']));
  const competing = competingVariables(env.merged);
  if (competing) warnings.push(competing);

  const endpoint =
    problems.length === 0 && checkedBaseUrl && modelId && apiKey
      ? {
          baseUrl: checkedBaseUrl,
          host: endpointHost(checkedBaseUrl),
          modelId: modelId.value,
          model: selection.model ?? modelId.value,
          provider: provider?.name,
          apiKey: apiKey.value,
          apiKeyEnv: apiKey.variable,
          proxy,
          origins: { baseUrl: baseUrl.origin, model: modelId.origin, apiKeyEnv: apiKeyEnv.origin, apiKey: apiKey.origin },
          warnings,
        }
      : undefined;
  return {
    baseUrl,
    modelId,
    model: selection.model,
    provider: provider?.name,
    apiKeyEnv,
    apiKey,
    proxy,
    env: env.merged,
    problems,
    warnings,
    endpoint,
  };
}

/** host[:port] of a base URL, without credentials or path: what records and logs may name. */
export function endpointHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return 'invalid-url';
  }
}

/** One line for logs: host, model, the key's variable and fingerprint; never the key. */
export function describeEndpoint(endpoint: Endpoint): string {
  const via = endpoint.proxy ? `, via ${describeProxy(endpoint.proxy)}` : '';
  return `${endpoint.host}, model ${endpoint.modelId}, key $${endpoint.apiKeyEnv} (fingerprint ${endpoint.apiKey.fingerprint})${via}`;
}

/** What records and statistics carry about the endpoint: enough to tell that a resume uses another key. */
export function endpointIdentity(endpoint: Endpoint): { endpoint_host: string; model: string; key_fingerprint: string } {
  return { endpoint_host: endpoint.host, model: endpoint.modelId, key_fingerprint: endpoint.apiKey.fingerprint };
}

/**
 * The environment of a child process that calls the model (requirement F): `base` without other
 * providers' variables, plus the one endpoint under both the OpenAI and the HERMES_* names. The child
 * resolves from these alone, so give it no --config. Processes that do not call the model must not get it.
 */
export function modelProcessEnv(endpoint: Endpoint, base: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !name.toUpperCase().startsWith('ANTHROPIC_')) env[name] = value;
  }
  const key = endpoint.apiKey.reveal();
  return {
    ...env,
    [endpoint.apiKeyEnv]: key,
    HERMES_BASE_URL: endpoint.baseUrl,
    HERMES_MODEL: endpoint.model,
    HERMES_API_KEY: key,
    OPENAI_BASE_URL: endpoint.baseUrl,
    OPENAI_API_KEY: key,
  };
}

/** The process environment over the --env-file's variables, remembering which one each came from. */
class Environment {
  public readonly merged: Record<string, string>;

  public constructor(
    private readonly process: Readonly<Record<string, string | undefined>>,
    private readonly file: EnvFile | undefined,
  ) {
    this.merged = { ...file?.values };
    for (const [name, value] of Object.entries(process)) if (value !== undefined) this.merged[name] = value;
  }

  /** A variable's value; empty counts as unset, except through getRaw. */
  public get(name: string): Sourced<string> | undefined {
    const found = this.getRaw(name);
    return found && found.value !== '' ? found : undefined;
  }

  public getRaw(name: string): Sourced<string> | undefined {
    const value = this.merged[name];
    if (value === undefined) return undefined;
    const inProcess = this.process[name] !== undefined;
    return { value, origin: inProcess ? { source: 'env', name } : { source: 'env-file', name: `${name} in ${this.file?.path ?? ''}` } };
  }

  public overriddenFileValues(names: readonly string[]): Finding<'env-file-overridden'>[] {
    const file = this.file;
    if (!file) return [];
    return [...new Set(names)].flatMap((name) => {
      const exported = this.process[name];
      const inFile = file.values[name];
      if (exported === undefined || inFile === undefined || exported === inFile) return [];
      const shown = (value: string): string => (/KEY|TOKEN|SECRET/i.test(name) ? `key ${keyFingerprint(value)}` : JSON.stringify(value));
      return [
        {
          id: 'env-file-overridden' as const,
          message: `${name} is exported (${shown(exported)}) and also set in ${file.path} (${shown(inFile)}): the exported value wins; unset ${name} or update ${file.path} so that they agree`,
        },
      ];
    });
  }
}

function fromFlag(flag: string, value: string | undefined): Sourced<string> | undefined {
  return value === undefined || value === '' ? undefined : { value, origin: { source: 'flag', name: flag } };
}

function fromConfig(config: EndpointConfig | undefined, key: string, value: string | undefined): Sourced<string> | undefined {
  return config && value !== undefined && value !== '' ? { value, origin: { source: 'config', name: `${key} in ${config.path}` } } : undefined;
}

function firstGiven<T>(...candidates: (Sourced<T> | undefined)[]): Sourced<T> | undefined {
  return candidates.find((c) => c !== undefined);
}

interface ProviderSelection {
  readonly provider: ProviderConfig | undefined;
  /** The name sent upstream. */
  readonly model: string | undefined;
  readonly problem?: string;
}

/**
 * `provider/model…` picks a provider of the config when its first part names one, and the rest is sent
 * upstream; otherwise the id is sent whole (`anthropic/claude-sonnet-4-6` is a gateway's own naming),
 * through the config's provider when it has exactly one.
 */
function selectProvider(modelId: string | undefined, config: EndpointConfig | undefined): ProviderSelection {
  if (modelId === undefined) return { provider: undefined, model: undefined };
  if (/\s/.test(modelId)) return { provider: undefined, model: modelId, problem: `model id ${JSON.stringify(modelId)} contains whitespace: remove it` };
  const slash = modelId.indexOf('/');
  const named = slash > 0 ? config?.providers.get(modelId.slice(0, slash)) : undefined;
  if (named) {
    const model = modelId.slice(slash + 1);
    if (model === '') return { provider: named, model, problem: `model id ${modelId} names provider ${named.name} but no model: write ${named.name}/MODEL` };
    return { provider: named, model };
  }
  const only = config && config.providers.size === 1 ? [...config.providers.values()][0] : undefined;
  return { provider: only, model: modelId };
}

function missingBaseUrlMessage(modelId: Sourced<string> | undefined, config: EndpointConfig | undefined): string {
  const names = config ? [...config.providers.keys()] : [];
  const hint =
    config && names.length > 1 && modelId
      ? `; the model id ${modelId.value} names none of the providers in ${config.path} (${names.join(', ')}): write it as ${names[0]}/${modelId.value}`
      : '';
  return `no base URL: pass --base-url URL, export HERMES_BASE_URL, or give a provider with base_url in --config${hint}`;
}

/** The base URL without a trailing slash, or undefined with a problem recorded. */
function checkBaseUrl(baseUrl: Sourced<string>, problems: Finding<EndpointProblemId>[]): string | undefined {
  const from = `(from ${baseUrl.origin.name})`;
  let url: URL;
  try {
    url = new URL(baseUrl.value.trim());
  } catch {
    problems.push({
      id: 'base-url-invalid',
      message: `base URL ${JSON.stringify(baseUrl.value)} ${from} is not a URL: write it whole, e.g. https://gateway.example.com/api`,
    });
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push({ id: 'base-url-invalid', message: `base URL ${from} uses ${url.protocol}; it must start with https:// (or http:// for a local server)` });
    return undefined;
  }
  if (url.username !== '' || url.password !== '') {
    problems.push({
      id: 'base-url-credentials',
      message: `base URL of ${url.host} ${from} holds credentials (user:password@): remove them; the key goes in the variable named by api_key_env`,
    });
    return undefined;
  }
  const clean = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (url.search !== '' || url.hash !== '') {
    const params = [...url.searchParams.keys()];
    const what = params.length > 0 ? `query parameters (${params.join(', ')})` : url.search !== '' ? 'a query' : 'a #fragment';
    problems.push({
      id: 'base-url-query',
      message: `base URL ${from} has ${what}, pasted with it from a browser: the client appends /chat/completions after them and every call fails with 404; use ${clean}`,
    });
    return undefined;
  }
  return clean;
}

interface FoundKey extends Sourced<ApiKey> {
  /** The variable read: api_key_env's, or OPENAI_API_KEY in its place. */
  readonly variable: string;
}

function readKey(apiKeyEnv: Sourced<string>, env: Environment, problems: Finding<EndpointProblemId>[]): FoundKey | undefined {
  const name = apiKeyEnv.value;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    // Why not echo the value: the usual mistake here is pasting the key itself.
    problems.push({
      id: 'api-key-env-invalid',
      message: `api_key_env (from ${apiKeyEnv.origin.name}) must be the NAME of an environment variable, such as TAOTOKEN_API_KEY, not the key: put the key in that variable`,
    });
    return undefined;
  }
  // Why only for the default: a configured variable that is unset must fail, not quietly use another key.
  const own = env.getRaw(name);
  const variable =
    apiKeyEnv.origin.source === 'default' && (own === undefined || own.value === '') && env.get('OPENAI_API_KEY') !== undefined ? 'OPENAI_API_KEY' : name;
  const found = env.getRaw(variable);
  const named = apiKeyEnv.origin.source === 'default' ? `$${name} (or OPENAI_API_KEY)` : `$${name} (named by ${apiKeyEnv.origin.name})`;
  const inheritance = 'a process started with nohup, cron or in the background sees only what was exported before it started';
  if (found === undefined) {
    problems.push({ id: 'key-unset', message: `no API key: ${named} is not set: export ${name}=... before the run, or pass --env-file FILE; ${inheritance}` });
    return undefined;
  }
  const where = found.origin.source === 'env-file' ? found.origin.name : `$${variable}`;
  if (found.value === '') {
    problems.push({
      id: 'key-empty',
      message: `no API key: ${where} is set but empty: export ${variable}=... with the key (an empty export also hides an --env-file value); ${inheritance}`,
    });
    return undefined;
  }
  const key = found.value;
  if (/\s/.test(key)) {
    problems.push({
      id: 'key-whitespace',
      message: `the API key in ${where} ${whitespaceKind(key)}; keys never contain whitespace and the gateway answers 401: remove it, e.g. export ${variable}="$(printf %s "$${variable}" | tr -d '[:space:]')"`,
    });
    return undefined;
  }
  if (/[^\x21-\x7e]/.test(key)) {
    problems.push({
      id: 'key-invalid-characters',
      message: `the API key in ${where} contains characters other than printable ASCII (typographic quotes pasted from a document?): copy the key again from the provider's console`,
    });
    return undefined;
  }
  return { value: new ApiKey(key), origin: found.origin, variable };
}

function whitespaceKind(key: string): string {
  if (/[\r\n]\s*$/.test(key)) return 'ends with a newline';
  if (/\s$/.test(key)) return 'ends with a space';
  if (/^\s/.test(key)) return 'starts with whitespace';
  return 'contains whitespace';
}

function checkProxy(baseUrl: string, env: Readonly<Record<string, string>>, problems: Finding<EndpointProblemId>[]): ProxyVariable | undefined {
  const proxy = proxyFor(baseUrl, env);
  if (proxy && proxy.url.protocol !== 'http:' && proxy.url.protocol !== 'https:') {
    problems.push({
      id: 'proxy-unsupported',
      message: `${describeProxy(proxy)} applies to ${endpointHost(baseUrl)}, but only http:// and https:// proxies are supported: set https_proxy=http://HOST:PORT, or add the host to no_proxy`,
    });
    return undefined;
  }
  return proxy;
}

function competingVariables(env: Readonly<Record<string, string>>): Finding<'openai-and-anthropic'> | undefined {
  const set = (prefix: string): string[] =>
    Object.keys(env)
      .filter((name) => name.toUpperCase().startsWith(prefix) && env[name] !== '')
      .sort();
  const openai = set('OPENAI_');
  const anthropic = set('ANTHROPIC_');
  if (openai.length === 0 || anthropic.length === 0) return undefined;
  return {
    id: 'openai-and-anthropic',
    message: `both OPENAI_* (${openai.join(', ')}) and ANTHROPIC_* (${anthropic.join(', ')}) variables are set: tools that read either pick one unpredictably; choose one and unset the others`,
  };
}
