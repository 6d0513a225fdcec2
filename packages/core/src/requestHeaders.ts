// The headers sent on every model request besides the client's own (--header 'Name: value', repeatable,
// and headers: under a provider in --config): a gateway's routing headers (Portkey's x-portkey-provider,
// OpenRouter's HTTP-Referer and X-Title). A header whose name looks secret holds its value in an ApiKey,
// so that no serialisation shows it, and registers it (registerSecret), so that every writer's redact
// removes it wherever the key is removed.
import { ApiKey, registerSecret } from './secrets.js';

/** Where a header came from (an endpoint Origin): --header, or the provider's headers: in --config. */
export interface HeaderOrigin {
  readonly source: 'flag' | 'config';
  readonly name: string;
}

export interface RequestHeader {
  /** As given; sent as given (HTTP names are case-insensitive). */
  readonly name: string;
  /** An ApiKey for a header whose name looks secret (isSecretHeader). */
  readonly value: string | ApiKey;
  readonly origin: HeaderOrigin;
}

/**
 * Names whose values are secrets: authorization and cookies, and any with a part (between - or _) that
 * names a credential: x-api-key, api-key, x-portkey-api-key, x-auth-token, x-client-secret. By parts,
 * so that x-portkey-provider (its "portkey" holds "key") is not one.
 */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return /authorization|cookie/.test(lower) || lower.split(/[-_]/).some((part) => SECRET_PARTS.has(part));
}

const SECRET_PARTS: ReadonlySet<string> = new Set(['key', 'apikey', 'token', 'secret', 'password', 'passwd', 'credential', 'credentials', 'auth', 'signature']);

/** Set by the client itself: the key's Authorization, and what HTTP manages. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'content-type', 'content-length', 'host', 'connection', 'transfer-encoding']);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** One --header value, `Name: value`; a problem names what is wrong with it. */
function parseHeaderFlag(text: string): { name: string; value: string } | string {
  const colon = text.indexOf(':');
  if (colon <= 0) return `--header ${JSON.stringify(headerShown(text))} is not "Name: value": write it as --header 'x-portkey-provider: openai'`;
  return { name: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() };
}

/** A value never shown in a message: the name may say it is a secret. */
function headerShown(text: string): string {
  const colon = text.indexOf(':');
  return colon > 0 && isSecretHeader(text.slice(0, colon)) ? `${text.slice(0, colon)}: …` : text;
}

/**
 * The headers of the config's provider and of --header, a flag replacing the provider's header of the
 * same name. A config value of the form ${VAR} is read from the environment, and a secret header in a
 * config file must take that form: a secret written into a file ends up in repositories and backups.
 */
export function resolveHeaders(
  flags: readonly string[] | undefined,
  config: { readonly path: string; readonly provider: string; readonly headers: ReadonlyMap<string, string> } | undefined,
  variable: (name: string) => string | undefined,
  problem: (message: string) => void,
): RequestHeader[] {
  const byName = new Map<string, RequestHeader>();
  const add = (name: string, value: string, origin: HeaderOrigin): void => {
    const wrong = headerProblem(name, value, origin);
    if (wrong !== undefined) problem(wrong);
    else byName.set(name.toLowerCase(), { name, value: isSecretHeader(name) ? secretValue(value) : value, origin });
  };
  for (const [name, raw] of config?.headers ?? []) {
    const origin: HeaderOrigin = { source: 'config', name: `providers.${config?.provider}.headers.${name} in ${config?.path}` };
    const named = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(raw.trim())?.[1];
    if (named === undefined) {
      if (isSecretHeader(name))
        problem(`${origin.name}: never write a secret into a config file: put it in an environment variable and write \${VARIABLE} as the value`);
      else add(name, raw, origin);
      continue;
    }
    const found = variable(named);
    if (found === undefined) problem(`${origin.name} is \${${named}}, but $${named} is not set: export it before the run`);
    else add(name, found, origin);
  }
  for (const text of flags ?? []) {
    const parsed = parseHeaderFlag(text);
    if (typeof parsed === 'string') problem(parsed);
    else add(parsed.name, parsed.value, { source: 'flag', name: '--header' });
  }
  return [...byName.values()];
}

function secretValue(value: string): ApiKey {
  registerSecret(value, 'secret');
  return new ApiKey(value);
}

function headerProblem(name: string, value: string, origin: HeaderOrigin): string | undefined {
  const where = `header ${JSON.stringify(name)} (from ${origin.name})`;
  if (!TOKEN.test(name)) return `${where} is not a valid header name: letters, digits and - only, e.g. x-portkey-provider`;
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    return `${where} is set by hermes-generate itself${name.toLowerCase() === 'authorization' ? ' from the API key: put the key in the variable named by api_key_env' : ''}; leave it out`;
  }
  if (/[\r\n\0]/.test(value)) return `${where} has a line break in its value: a header value is one line`;
  return undefined;
}

/** The headers as sent. */
export function headerValues(headers: readonly RequestHeader[]): Record<string, string> {
  return Object.fromEntries(headers.map((header) => [header.name, typeof header.value === 'string' ? header.value : header.value.reveal()]));
}

/** How logs and doctor name the headers: a secret one by its fingerprint. */
export function describeHeaders(headers: readonly RequestHeader[]): string {
  return headers.map((header) => `${header.name}: ${typeof header.value === 'string' ? header.value : `[secret ${header.value.fingerprint}]`}`).join(', ');
}
