// The checks of the resolved values: a usable base URL, a key that can be sent, a supported proxy.
// Each records a problem whose message ends with the fix, so doctor can report them all at once.
import { endpointHost, type EndpointProblemId, type Finding, type Sourced } from './endpoint.js';
import type { Environment } from './endpointEnvironment.js';
import { describeProxy, proxyFor, type ProxyVariable } from './proxy.js';
import { ApiKey, registerSecret } from './secrets.js';

/** The base URL without a trailing slash, or undefined with a problem recorded. */
export function checkBaseUrl(baseUrl: Sourced<string>, problems: Finding<EndpointProblemId>[]): string | undefined {
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

export interface FoundKey extends Sourced<ApiKey> {
  /** The variable read: api_key_env's, or OPENAI_API_KEY in its place. */
  readonly variable: string;
}

export function readKey(apiKeyEnv: Sourced<string>, env: Environment, problems: Finding<EndpointProblemId>[]): FoundKey | undefined {
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
  // From here on nothing this process writes holds it, even when it is refused below.
  registerSecret(key);
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

export function checkProxy(baseUrl: string, env: Readonly<Record<string, string>>, problems: Finding<EndpointProblemId>[]): ProxyVariable | undefined {
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
