// Proxy variables as curl and Python read them: http_proxy / https_proxy / all_proxy in any case
// (lowercase first), minus hosts listed in no_proxy. The chat client honours the one that applies,
// like the users' other tools do, and doctor probes each one.

export interface ProxyVariable {
  /** The variable's name as set, e.g. https_proxy or HTTPS_PROXY. */
  readonly name: string;
  readonly url: URL;
}

const PROXY_NAMES = ['https_proxy', 'http_proxy', 'all_proxy'] as const;

/** Every proxy variable that is set and parses, lowercase spellings before others. */
export function proxyVariables(env: Readonly<Record<string, string | undefined>>): ProxyVariable[] {
  const found: ProxyVariable[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!(PROXY_NAMES as readonly string[]).includes(name.toLowerCase()) || value === undefined || value.trim() === '') continue;
    const url = parseProxyUrl(value.trim());
    if (url) found.push({ name, url });
  }
  const rank = (v: ProxyVariable): number =>
    PROXY_NAMES.indexOf(v.name.toLowerCase() as (typeof PROXY_NAMES)[number]) * 2 + (v.name === v.name.toLowerCase() ? 0 : 1);
  return found.sort((a, b) => rank(a) - rank(b));
}

/** The proxy a request to `target` goes through, or undefined when none is set or no_proxy exempts the host. */
export function proxyFor(target: string | URL, env: Readonly<Record<string, string | undefined>>): ProxyVariable | undefined {
  const url = new URL(target);
  if (exempt(url, env)) return undefined;
  const wanted = url.protocol === 'https:' ? 'https_proxy' : 'http_proxy';
  const variables = proxyVariables(env);
  return variables.find((v) => v.name.toLowerCase() === wanted) ?? variables.find((v) => v.name.toLowerCase() === 'all_proxy');
}

/** `name=scheme://host:port`, without any credentials the URL holds. */
export function describeProxy(proxy: ProxyVariable): string {
  return `${proxy.name}=${proxy.url.protocol}//${proxy.url.host}`;
}

/** The port a proxy listens on, with the scheme's default when the URL names none. */
export function proxyPort(proxy: ProxyVariable): number {
  if (proxy.url.port !== '') return Number(proxy.url.port);
  return proxy.url.protocol === 'https:' ? 443 : proxy.url.protocol.startsWith('socks') ? 1080 : 80;
}

// Why the default scheme: curl and Python accept `127.0.0.1:7890` and mean http.
function parseProxyUrl(value: string): URL | undefined {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return undefined;
  }
}

function exempt(url: URL, env: Readonly<Record<string, string | undefined>>): boolean {
  const list = Object.entries(env)
    .filter(([name]) => name.toLowerCase() === 'no_proxy')
    .map(([, value]) => value ?? '')
    .join(',');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return list
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .some((entry) => {
      if (entry === '') return false;
      if (entry === '*') return true;
      // A bare IPv6 address has several colons and no port; `[::1]:8080` and `host:8080` name one.
      const withPort = entry.startsWith('[') || entry.split(':').length === 2 ? /^(.*):(\d+)$/.exec(entry) : null;
      const entryHost = (withPort?.[1] ?? entry).replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
      if (withPort && withPort[2] !== port) return false;
      return host === entryHost || host.endsWith(`.${entryHost}`);
    });
}
