// What an endpoint is: base URL, API key and model id. Every model call of the project (the main agent,
// sub-agents and the compression summariser alike) takes it from the one resolution, resolveEndpoint.ts:
// a part that read another source would fail with 401 or silently use a stale key. Precedence: command-line
// flag (endpointOptions.ts) > environment, an --env-file filling gaps (endpointEnvironment.ts) > config file
// (provider.ts) > default; endpointChecks.ts checks the values. Each value remembers where it came from, so
// errors and doctor can say which source to fix.
import { describeProxy, type ProxyVariable } from './proxy.js';
import { describeHeaders, type RequestHeader } from './requestHeaders.js';
import type { ApiKey } from './secrets.js';

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

export interface EndpointIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

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
  | 'proxy-unsupported'
  | 'header-invalid';

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
  /** Sent on every model request (--header, the provider's headers:). */
  readonly headers: readonly RequestHeader[];
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
  readonly headers: readonly RequestHeader[];
  /** The environment the values were read from: the process's, over the --env-file's. */
  readonly env: Readonly<Record<string, string>>;
  readonly problems: readonly Finding<EndpointProblemId>[];
  readonly warnings: readonly Finding<EndpointWarningId>[];
  /** Present exactly when there are no problems. */
  readonly endpoint: Endpoint | undefined;
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
  const headers = endpoint.headers.length > 0 ? `, headers ${describeHeaders(endpoint.headers)}` : '';
  return `${endpoint.host}, model ${endpoint.modelId}, key $${endpoint.apiKeyEnv} (fingerprint ${endpoint.apiKey.fingerprint})${via}${headers}`;
}

/** What records and statistics carry about the endpoint: enough to tell that a resume uses another key. */
export function endpointIdentity(endpoint: Endpoint): { endpoint_host: string; model: string; key_fingerprint: string } {
  return { endpoint_host: endpoint.host, model: endpoint.modelId, key_fingerprint: endpoint.apiKey.fingerprint };
}

/**
 * The environment of a child process that calls the model: `base` without other providers' variables,
 * plus the one endpoint under both the OpenAI and the HERMES_* names. The child resolves from these
 * alone, so give it no --config. Processes that do not call the model must not get it.
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
