// The network side of doctor: one HTTP exchange recorded whole (never thrown), and a TCP connect to a
// proxy's address. Both bounded by the --timeout.
import { connect } from 'node:net';
import { describeProxy, proxyPort, type FetchLike, type ProxyVariable } from '@hermes-datagen/core/endpoint';
import type { Exchange } from './judgeExchange.js';

export interface RequestParts {
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export async function exchange(fetchFn: FetchLike, method: string, url: string, parts: RequestParts, timeoutMs: number): Promise<Exchange> {
  const started = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetchFn(url, {
      method,
      headers: parts.headers,
      ...(parts.body === undefined ? {} : { body: parts.body }),
      signal,
      redirect: 'manual',
    });
    const body = await response.text();
    return {
      kind: 'response',
      method,
      url,
      status: response.status,
      statusText: response.statusText,
      contentType: response.headers.get('content-type') ?? '',
      body,
      retryAfter: response.headers.get('retry-after') ?? undefined,
      retryAfterMs: response.headers.get('retry-after-ms') ?? undefined,
      elapsedMs: Date.now() - started,
    };
  } catch (err) {
    return { kind: 'error', method, url, code: errorCode(err), timedOut: signal.aborted, message: innermostMessage(err) };
  }
}

export interface ProxyProbe {
  readonly proxy: ProxyVariable;
  readonly reachable: boolean;
  readonly code: string | undefined;
}

/** Whether anything accepts a TCP connection at the proxy's address. */
export function probeProxy(proxy: ProxyVariable, timeoutMs: number): Promise<ProxyProbe> {
  return new Promise((resolve) => {
    const socket = connect({ host: proxy.url.hostname.replace(/^\[|\]$/g, ''), port: proxyPort(proxy) });
    const finish = (reachable: boolean, code: string | undefined): void => {
      socket.destroy();
      resolve({ proxy, reachable, code });
    };
    socket.setTimeout(timeoutMs, () => finish(false, 'ETIMEDOUT'));
    socket.once('connect', () => finish(true, undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => finish(false, err.code ?? err.message));
  });
}

export function proxyAddress(probe: ProxyProbe): string {
  return `${describeProxy(probe.proxy)} (${probe.proxy.url.hostname}:${proxyPort(probe.proxy)})`;
}

// fetch wraps the system error: TypeError('fetch failed') → cause (maybe an AggregateError of one per address).
function errorCode(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const next = queue.shift();
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    const code = (next as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '' && code !== 'ABORT_ERR') return code;
    queue.push((next as { cause?: unknown }).cause, ...((next as { errors?: unknown[] }).errors ?? []));
  }
  return undefined;
}

function innermostMessage(err: unknown): string {
  let current: unknown = err;
  while (typeof current === 'object' && current !== null && (current as { cause?: unknown }).cause instanceof Error)
    current = (current as { cause: unknown }).cause;
  return current instanceof Error ? current.message : String(current);
}
