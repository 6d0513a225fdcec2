// What doctor concludes from one exchange with the endpoint: each failure users meet with their
// gateway, named with its cause and its fix. Pure functions over recorded exchanges, so every diagnosis
// can be tested against a scripted endpoint and read without the network code around it. A failed
// prompt of a run is judged here too (promptFailure.ts), so both name a failure alike, and its id
// decides the exit code (failureKinds.ts).
import { embeddedErrorStatus, gatewayErrorFields, readGatewayError } from '@hermes-datagen/core/endpoint';
import { editDistance } from '@hermes-datagen/core';

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One line of doctor's report; `id` is stable (for --json and tests). */
export interface Check {
  readonly id: string;
  readonly status: CheckStatus;
  readonly message: string;
  readonly fix?: string;
}

/** An HTTP response as doctor saw it (the body as text, the server's own Retry-After, uncapped). */
export interface HttpExchange {
  readonly kind: 'response';
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string;
  readonly body: string;
  readonly retryAfter: string | undefined;
  readonly retryAfterMs: string | undefined;
  readonly elapsedMs: number;
}

/** A request that got no response: refused, unresolved, timed out, reset. */
export interface FailedExchange {
  readonly kind: 'error';
  readonly method: string;
  readonly url: string;
  /** The system error code found in the error's causes (ECONNREFUSED, ENOTFOUND…). */
  readonly code: string | undefined;
  readonly timedOut: boolean;
  readonly message: string;
}

export type Exchange = HttpExchange | FailedExchange;

export interface ChatContext {
  /** The model name sent upstream. */
  readonly model: string;
  /** `$HERMES_API_KEY (fingerprint 1a2b3c4d, from the environment)`: how the report names the key. */
  readonly key: string;
  /** The variable that holds the key. */
  readonly keyVariable: string;
  readonly timeoutMs: number;
  /** The option that sets timeoutMs: --timeout for doctor, --request-timeout for a run. */
  readonly timeoutFlag: string;
  readonly retryAfterCapMs: number;
}

export interface ChatVerdict {
  readonly check: Check;
  /** Nothing OpenAI-like answers at this path: worth trying the base URL with /v1 added or removed. */
  readonly wrongPath: boolean;
  /** The gateway does not know the model: worth listing GET /models. */
  readonly unknownModel: boolean;
}

const TIMEOUT_CODES: readonly string[] = ['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'];
const RESET_CODES: readonly string[] = ['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'];
const OAUTH_WORDS = /oauth|invalid[_ ]token|token[_ ]expired|expired[_ ]token|token (has|is) expired|access[_ ]token|refresh[_ ]token/i;
const UNKNOWN_MODEL_WORDS =
  /model[^.]*(not (found|exist|supported|available)|does not exist|is not a valid|unknown)|(invalid|unknown|no such|not a valid) model/i;

export function judgeChat(exchange: Exchange, context: ChatContext): ChatVerdict {
  if (exchange.kind === 'error') return { check: judgeFailure(exchange, context), wrongPath: false, unknownModel: false };
  const verdict = (check: Check, flags: Partial<Pick<ChatVerdict, 'wrongPath' | 'unknownModel'>> = {}): ChatVerdict => ({
    check,
    wrongPath: false,
    unknownModel: false,
    ...flags,
  });
  // A gateway that reports an upstream failure as {"error": {"code": 429}} with status 200 means that status.
  const parsed = parseJson(exchange.body);
  const embedded = exchange.status === 200 ? embeddedErrorStatus(parsed) : undefined;
  const status = embedded ?? exchange.status;
  const error = gatewayErrorFields(parsed);
  const said = error.message ? `: "${clip(error.message)}"` : '';
  const where = `${exchange.method} ${exchange.url}`;

  if (looksLikeHtml(exchange)) {
    return verdict(
      {
        id: 'not-an-api',
        status: 'fail',
        message: `${where} answered ${status} with an HTML page, not an OpenAI-compatible API; clients then fail "reading choices" (KeyError: 'choices')`,
        fix: "point the base URL at the gateway's API, not its website: usually the URL its docs give for OpenAI clients, often ending in /v1 or /api",
      },
      { wrongPath: true },
    );
  }
  // What a known gateway's refusal means (core gatewayErrors.ts): the same table the client's retries follow.
  const dialect = looksLikeHtml(exchange) ? undefined : readGatewayError(status, parsed);
  if (dialect !== undefined) {
    const wait = dialect.retry ? retryAfterText(exchange) : undefined;
    return verdict(
      {
        id: dialect.kind,
        status: 'fail',
        message: `${where} answered ${status}${embedded ? ' (inside a 200)' : ''}${said}${wait ? `; it asks to wait ${wait}` : ''}: ${dialect.meaning}${dialect.kind === 'model-not-found' ? ` (model ${context.model})` : ''}`,
        fix: dialect.fix,
      },
      { unknownModel: dialect.kind === 'model-not-found' },
    );
  }
  if ((status === 401 || status === 403) && OAUTH_WORDS.test(`${error.type ?? ''} ${error.code ?? ''} ${error.message ?? ''}`)) {
    return verdict({
      id: 'oauth',
      status: 'fail',
      message: `${where} answered ${status} with an OAuth error${said}: the gateway treated the credential as an OAuth token`,
      fix: `use an API key, not an OAuth token: create a key in the gateway's console, put it in $${context.keyVariable} and set auth_mode: api_key where an OAuth mode was chosen; OAuth tokens expire mid-run`,
    });
  }
  if (status === 401) {
    return verdict({
      id: 'unauthorized',
      status: 'fail',
      message: `${where} answered 401${embedded ? ' (inside a 200)' : ' Unauthorized'}${said}: the gateway rejected the key in ${context.key}`,
      fix: "check the key is current (not revoked or rotated) and belongs to this gateway; if doctor passes but runs get 401, the run's processes did not inherit the variable (nohup, cron, a background start): export it before starting them",
    });
  }
  if ((status === 404 || status === 400) && (error.code === 'model_not_found' || UNKNOWN_MODEL_WORDS.test(error.message ?? ''))) {
    return verdict(
      {
        id: 'model-not-found',
        status: 'fail',
        message: `${where} answered ${status}: the gateway does not offer model ${context.model}${said}`,
        fix: "check the model id's spelling and its provider/model form against the gateway's model list",
      },
      { unknownModel: true },
    );
  }
  if (status === 403) {
    return verdict({
      id: 'forbidden',
      status: 'fail',
      message: `${where} answered 403 Forbidden${said}: the key in ${context.key} was accepted but may not do this`,
      fix: `check the key's permissions on the gateway (access to model ${context.model}, credit, region or IP restrictions)`,
    });
  }
  if (status === 404 || status === 405) {
    return verdict(
      {
        id: 'path-404',
        status: 'fail',
        message: `${where} answered ${status}${said}: nothing serves chat completions at this path`,
        fix: "the base URL's path is wrong: the client appends /chat/completions to it, so it must end where the gateway's OpenAI-compatible API begins (often /v1, never /v1/v1)",
      },
      { wrongPath: true },
    );
  }
  if (status === 429) {
    const wait = retryAfterText(exchange);
    return verdict({
      id: 'rate-limited',
      status: 'fail',
      message: `${where} answered 429${embedded ? ' (inside a 200)' : ' Too Many Requests'}${said}${wait ? `; it asks to wait ${wait}` : ''} (hermes-generate waits at most ${context.retryAfterCapMs / 1000} s before a retry)`,
      fix: "the account is over its rate limit: cap the run at the plan's limits with --rpm N (requests a minute) and --tpm N (tokens a minute), or lower --concurrency; check the plan's limits with the gateway, and --resume a run that stopped",
    });
  }
  if (status >= 500) {
    return verdict({
      id: 'server-error',
      status: 'fail',
      message: `${where} answered ${status}${embedded ? ' (inside a 200)' : exchange.statusText ? ` ${exchange.statusText}` : ''}${said}: the gateway or its upstream failed`,
      fix: 'try again later; if it persists, report it to the gateway with the time of the failure',
    });
  }
  if (status < 200 || status >= 300) {
    return verdict({
      id: 'http-error',
      status: 'fail',
      message: `${where} answered ${status}${embedded ? ' (inside a 200)' : exchange.statusText ? ` ${exchange.statusText}` : ''}${said}`,
      fix: "read the gateway's message above: it names the parameter or setting it refuses",
    });
  }
  if (/^\s*[[{]/.test(exchange.body) && !isJson(exchange.body)) {
    return verdict({
      id: 'malformed-reply',
      status: 'fail',
      message: `${where} answered ${status} with a body that is not valid JSON (${exchange.body.length} characters, starting "${clip(exchange.body, 60)}"): it was cut short or garbled on the way`,
      fix: 'a connection or proxy that drops the end of replies, or an overloaded gateway: try again later; if it persists, check any proxy between here and the gateway',
    });
  }
  const choices = choicesOf(exchange.body);
  if (choices !== undefined && choices > 0 && !hasMessage(exchange.body)) {
    return verdict({
      id: 'no-choices',
      status: 'fail',
      message: `${where} answered ${status} with a choice that has no message`,
      fix: `the base URL answers, but not as an OpenAI-compatible chat completions API: check it points at the API, and that model ${context.model} is served`,
    });
  }
  if (choices === undefined || choices === 0) {
    const what = choices === 0 ? 'an empty `choices` list' : isJson(exchange.body) ? 'JSON without `choices`' : 'a body that is not JSON';
    return verdict(
      {
        id: 'no-choices',
        status: 'fail',
        message: `${where} answered ${status} with ${what}${said}; clients then fail "reading choices" (KeyError: 'choices', list index out of range)`,
        fix: `the base URL answers, but not as an OpenAI-compatible chat completions API: check it points at the API (not a dashboard or another kind of API), and that model ${context.model} is served; a body with an error message is the gateway reporting a failure upstream`,
      },
      { wrongPath: choices === undefined && !isJson(exchange.body) },
    );
  }
  return verdict({
    id: 'chat-ok',
    status: 'ok',
    message: `${where} answered ${status} with ${choices} choice${choices === 1 ? '' : 's'} in ${exchange.elapsedMs} ms (model ${context.model})`,
  });
}

function judgeFailure(exchange: FailedExchange, context: ChatContext): Check {
  const host = hostOf(exchange.url);
  const where = `${exchange.method} ${exchange.url}`;
  if (exchange.timedOut || TIMEOUT_CODES.includes(exchange.code ?? '')) {
    return {
      id: 'timeout',
      status: 'fail',
      message: exchange.timedOut ? `${where} got no answer within ${context.timeoutMs / 1000} s` : `${where} timed out (${exchange.code})`,
      fix: `${host} is unreachable or the base URL is wrong (a wrong port, a firewall that drops packets, a gateway reachable only through a proxy); if the gateway is merely slow, raise ${context.timeoutFlag}`,
    };
  }
  if (RESET_CODES.includes(exchange.code ?? '')) {
    return {
      id: 'connection-reset',
      status: 'fail',
      message: `${where} failed: the connection was reset or closed mid-request (${exchange.code})`,
      fix: `${host} or something between (a proxy, a load balancer) dropped the connection: try again later, with a lower --concurrency if it happens under load`,
    };
  }
  if (exchange.code === 'ECONNREFUSED') {
    return {
      id: 'connection-refused',
      status: 'fail',
      message: `${where} failed: connection refused by ${host} (nothing listens there)`,
      fix: 'check the host and port of the base URL, or start the server it names',
    };
  }
  if (exchange.code === 'ENOTFOUND' || exchange.code === 'EAI_AGAIN' || exchange.code === 'EAI_NONAME') {
    return {
      id: 'dns',
      status: 'fail',
      message: `${where} failed: the host name ${new URL(exchange.url).hostname} does not resolve (${exchange.code})`,
      fix: "check the spelling of the base URL's host; if it is right, check this machine's DNS or network connection",
    };
  }
  const tls = exchange.code?.includes('CERT') === true || /certificate|TLS|SSL/i.test(exchange.message);
  return {
    id: tls ? 'tls' : 'network-error',
    status: 'fail',
    message: `${where} failed: ${exchange.code ? `${exchange.code}: ` : ''}${clip(exchange.message)}`,
    fix: tls
      ? 'the TLS certificate was refused: check the host name of the base URL, or set NODE_EXTRA_CA_CERTS to the CA file of a corporate proxy'
      : `check that ${host} is reachable from this machine (curl the base URL)`,
  };
}

/** The base URL with /v1 added, or one /v1 removed: the usual mistakes about who adds /v1. */
export function pathVariant(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const varied = /\/v1$/.test(path) ? path.slice(0, -3) : `${path}/v1`;
  return `${url.origin}${varied}`;
}

/** A check for the path finding once the variant has been tried. */
export function judgePathVariant(original: Check, baseUrl: string, variant: string, variantVerdict: ChatVerdict, variantStatus: string): Check {
  if (variantVerdict.wrongPath) {
    return { ...original, message: `${original.message}; ${variant} fails the same way (${variantStatus})` };
  }
  const doubled = /\/v1\/v1$/.test(new URL(baseUrl).pathname.replace(/\/+$/, ''));
  const reason =
    variant.length > baseUrl.length
      ? "the gateway's API lives under /v1, which the base URL lacks"
      : doubled
        ? '/v1 was given twice: the base URL already ends in /v1 and a second one was added'
        : 'the base URL has a /v1 this gateway does not use';
  return {
    ...original,
    message: `${original.message}; with ${variant} the gateway answers (${variantStatus}): ${reason}`,
    fix: `set the base URL to ${variant} (the client appends /chat/completions itself)`,
  };
}

/** A check for an unknown model, with the models the gateway lists that come closest. */
export function judgeUnknownModel(original: Check, model: string, listed: readonly string[] | undefined): Check {
  if (listed === undefined) return original;
  const close = closestModels(model, listed);
  // `taotoken/anthropic/x` sent whole because no provider `taotoken` is configured, while the gateway knows `anthropic/x`.
  const slash = model.indexOf('/');
  const unprefixed = slash > 0 ? model.slice(slash + 1) : undefined;
  const prefixNote =
    unprefixed !== undefined && listed.includes(unprefixed)
      ? `the gateway names it ${unprefixed}: "${model.slice(0, slash)}/" was sent as part of the model because no provider of that name is in --config (add providers.${model.slice(0, slash)} to it, or drop the prefix)`
      : undefined;
  const offered =
    close.length > 0
      ? `the closest models it lists: ${close.join(', ')}`
      : `it lists ${listed.length} model${listed.length === 1 ? '' : 's'}${listed.length > 0 ? `, e.g. ${listed.slice(0, 5).join(', ')}` : ''}`;
  const first = close[0];
  const fix = [first ? `pass --model ${first} (or another id from GET /models)` : 'pass --model with an id from GET /models', prefixNote]
    .filter(Boolean)
    .join('; ');
  return { ...original, message: `${original.message}; ${offered}`, fix };
}

/** Listed model ids closest to `model`: same name after a provider prefix, containment, or a small edit distance. */
export function closestModels(model: string, listed: readonly string[], limit = 5): string[] {
  const lower = model.toLowerCase();
  const tail = (id: string): string => id.toLowerCase().split('/').pop() ?? id.toLowerCase();
  const score = (id: string): number => {
    const candidate = id.toLowerCase();
    if (candidate === lower) return 0;
    if (tail(id) === tail(model) || candidate.endsWith(`/${lower}`) || lower.endsWith(`/${candidate}`)) return 1;
    // Relative, so that a typo in a long versioned name (claude-sonet vs claude-sonnet-4-6) still counts.
    const distance = editDistance(tail(id), tail(model)) / Math.max(tail(id).length, tail(model).length, 1);
    if (distance <= 0.4) return 2 + distance;
    if (candidate.includes(tail(model)) || lower.includes(tail(id))) return 10;
    return Number.POSITIVE_INFINITY;
  };
  return listed
    .map((id) => ({ id, s: score(id) }))
    .filter((c) => Number.isFinite(c.s))
    .sort((a, b) => a.s - b.s)
    .slice(0, limit)
    .map((c) => c.id);
}

/** Model ids from a GET /models body ({data: [{id}]}), undefined when it is not such a list. */
export function listedModels(exchange: Exchange): string[] | undefined {
  if (exchange.kind !== 'response' || exchange.status !== 200) return undefined;
  const parsed = parseJson(exchange.body) as { data?: unknown } | undefined;
  if (!parsed || !Array.isArray(parsed.data)) return undefined;
  return parsed.data.flatMap((entry: unknown) => (typeof (entry as { id?: unknown })?.id === 'string' ? [(entry as { id: string }).id] : []));
}

/** How a report line names an exchange's outcome: `200`, `404 Not Found`, `ECONNREFUSED`. */
export function outcomeOf(exchange: Exchange): string {
  if (exchange.kind === 'response') return `${exchange.status}${exchange.statusText ? ` ${exchange.statusText}` : ''}`;
  return exchange.timedOut ? 'timed out' : (exchange.code ?? 'failed');
}

function retryAfterText(exchange: HttpExchange): string | undefined {
  if (exchange.retryAfterMs !== undefined) return `${exchange.retryAfterMs} ms (retry-after-ms)`;
  if (exchange.retryAfter === undefined) return undefined;
  return /^\d+(\.\d+)?$/.test(exchange.retryAfter.trim()) ? `${exchange.retryAfter.trim()} s (Retry-After)` : `until ${exchange.retryAfter} (Retry-After)`;
}

function looksLikeHtml(exchange: HttpExchange): boolean {
  return /html/i.test(exchange.contentType) || /^\s*</.test(exchange.body);
}

function choicesOf(body: string): number | undefined {
  const parsed = parseJson(body) as { choices?: unknown } | undefined;
  return parsed && Array.isArray(parsed.choices) ? parsed.choices.length : undefined;
}

function hasMessage(body: string): boolean {
  const parsed = parseJson(body) as { choices?: unknown[] } | undefined;
  const first = parsed?.choices?.[0] as { message?: unknown } | undefined;
  return typeof first?.message === 'object' && first.message !== null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isJson(text: string): boolean {
  return parseJson(text) !== undefined;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
