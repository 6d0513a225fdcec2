// What real gateways answer when they refuse a request, and what each answer means: the one table of
// error dialects (docs/gateway-errors.md lists each row with the body it was taken from). Doctor and a
// run read a refusal through it alike (generate's judgeExchange.ts), and the client asks it whether a
// refusal is worth retrying (chatClient.ts clientRetries): a billing 429 is not a rate limit, so it is
// never retried, and a 400 that names a parameter, a header or the context window says which.
import { isPlainObject } from './plainObject.js';

/** The failure a dialect row stands for; each is a failure kind of hermes-generate (failureKinds.ts). */
export type GatewayErrorKind =
  | 'insufficient-quota'
  | 'context-length'
  | 'key-unverifiable'
  | 'model-not-found'
  | 'param-rejected'
  | 'header-required'
  | 'content-filter'
  | 'rate-limited';

/** The fields of an error body, wherever the gateway put them. */
export interface GatewayErrorFields {
  readonly message: string | undefined;
  readonly type: string | undefined;
  readonly code: string | undefined;
  readonly param: string | undefined;
  /** OpenRouter's metadata.provider_name: which upstream provider answered. */
  readonly provider: string | undefined;
}

/** What a refusal means, with what to do about it. */
export interface GatewayError {
  /** The row of the table that matched (docs/gateway-errors.md). */
  readonly dialect: string;
  readonly kind: GatewayErrorKind;
  /** What the gateway meant, for a report line. */
  readonly meaning: string;
  readonly fix: string;
  /** Whether sending it again as it is may pass (only a rate limit). */
  readonly retry: boolean;
}

interface DialectRow {
  readonly dialect: string;
  readonly kind: GatewayErrorKind;
  readonly matches: (status: number, fields: GatewayErrorFields) => boolean;
  readonly meaning: (fields: GatewayErrorFields) => string;
  readonly fix: (fields: GatewayErrorFields) => string;
}

const CONTEXT_WORDS = /maximum context length|longer than the model'?s context length|context_length_exceeded|exceeds the model'?s maximum context/i;
const CONTEXT_FIX =
  'this prompt is too long for the model: shorten it, lower --max-turns (every turn adds to the conversation), or use a model with a longer context; the other prompts go on';
const QUOTA_FIX =
  "add credit or raise the plan's limit in the provider's billing settings (and check that the key belongs to the account or organisation that has it), then run again with --resume; waiting does not help";

/** The dialects, most specific first: the first row that matches decides. */
export const GATEWAY_DIALECTS: readonly DialectRow[] = [
  {
    dialect: 'openai-insufficient-quota',
    kind: 'insufficient-quota',
    matches: (_, f) => f.code === 'insufficient_quota' || f.type === 'insufficient_quota',
    meaning: () => "the account's quota or credit is used up (insufficient_quota): a billing limit, not a rate limit",
    fix: () => QUOTA_FIX,
  },
  {
    dialect: 'openrouter-credits',
    kind: 'insufficient-quota',
    matches: (status, f) => status === 402 || /insufficient credits|requires more credits/i.test(f.message ?? ''),
    meaning: () => 'the account has no credits left for this request (402 Payment Required)',
    fix: () => `${QUOTA_FIX} (OpenRouter: https://openrouter.ai/settings/credits)`,
  },
  {
    dialect: 'litellm-no-db-connection',
    kind: 'key-unverifiable',
    matches: (_, f) => f.type === 'no_db_connection' || /no connected db/i.test(f.message ?? ''),
    meaning: () => 'this LiteLLM proxy has no key database, so it cannot check the key: it accepts only its master key',
    fix: () =>
      "put the proxy's master key (general_settings.master_key) in the key variable, or connect the proxy's database (DATABASE_URL) to use virtual keys",
  },
  {
    dialect: 'litellm-unsupported-params',
    kind: 'param-rejected',
    matches: (_, f) => /UnsupportedParamsError/.test(f.message ?? ''),
    meaning: (f) => `the deployment rejects a parameter hermes-generate sends: ${rejectedParam(f) ?? 'see the message'}`,
    fix: (f) =>
      `${flagFix(rejectedParam(f))}, or let the proxy drop what the model does not take (litellm_settings: drop_params: true, or allowed_openai_params in the request's deployment)`,
  },
  {
    dialect: 'vllm-auto-tool-choice',
    kind: 'param-rejected',
    matches: (_, f) => /"?auto"? tool choice requires --enable-auto-tool-choice/i.test(f.message ?? ''),
    meaning: () => 'the server was started without tool calling, so it rejects the tools hermes-generate offers: tools',
    fix: () =>
      'start vLLM with --enable-auto-tool-choice --tool-call-parser NAME (e.g. hermes; SGLang: --tool-call-parser), or offer no tools (--toolsets with none)',
  },
  {
    dialect: 'portkey-header-required',
    kind: 'header-required',
    matches: (_, f) => /x-portkey-[a-z-]+ (or [a-z-]+ )?header is required/i.test(f.message ?? ''),
    meaning: (f) => `the Portkey gateway needs a header it was not sent: ${requiredHeaders(f).join(' or ') || 'see the message'}`,
    fix: (f) =>
      `pass it with --header, e.g. --header '${requiredHeaders(f).includes('x-portkey-config') && !requiredHeaders(f).includes('x-portkey-provider') ? 'x-portkey-config: CONFIG_ID' : 'x-portkey-provider: openai'}' (repeatable; or headers: under the provider in --config)`,
  },
  {
    dialect: 'context-length',
    kind: 'context-length',
    matches: (status, f) => (status === 400 || status === 413 || status === 422) && CONTEXT_WORDS.test(`${f.code ?? ''} ${f.message ?? ''}`),
    meaning: () => "the conversation is longer than the model's context window",
    fix: () => CONTEXT_FIX,
  },
  {
    dialect: 'azure-content-filter',
    kind: 'content-filter',
    matches: (_, f) => f.code === 'content_filter' || /content management policy/i.test(f.message ?? ''),
    meaning: () => "the provider's content filter refused this prompt",
    fix: () => 'this prompt is refused as it is: change or drop it, or ask for a less strict content filter on the deployment; the other prompts go on',
  },
  {
    dialect: 'litellm-invalid-model',
    kind: 'model-not-found',
    matches: (_, f) => /invalid model name passed in/i.test(f.message ?? ''),
    meaning: () => 'the proxy has no deployment of this model name',
    fix: () => "pass --model with a model_name of the proxy's config (GET /models lists those the key may use)",
  },
  {
    dialect: 'openrouter-provider-rate-limit',
    kind: 'rate-limited',
    matches: (status, f) => status === 429 && f.provider !== undefined,
    meaning: (f) => `the upstream provider ${f.provider} is rate-limiting the gateway's requests`,
    fix: (f) =>
      `wait and run again with --resume, cap the run with --rpm/--tpm, or let the gateway route around ${f.provider} (OpenRouter: provider.allow_fallbacks, or another provider in provider.order)`,
  },
];

/** The dialect row a refusal matches, or undefined for one the table does not know. */
export function readGatewayError(status: number, body: unknown): GatewayError | undefined {
  if (status < 400) return undefined;
  const fields = gatewayErrorFields(body);
  const row = GATEWAY_DIALECTS.find((candidate) => candidate.matches(status, fields));
  if (row === undefined) return undefined;
  return { dialect: row.dialect, kind: row.kind, meaning: row.meaning(fields), fix: row.fix(fields), retry: row.kind === 'rate-limited' };
}

/**
 * The error fields of a body: `{"error": {...}}` (OpenAI and most gateways), `{"error": "text"}`, or
 * the fields at the top (vLLM's and SGLang's `{"object": "error", "message": ...}`, Portkey's
 * `{"status": "failure", "message": ...}`). A message that is an object (LiteLLM's
 * `{"message": {"error": "..."}}`) is read as its own error text.
 */
export function gatewayErrorFields(body: unknown): GatewayErrorFields {
  if (!isPlainObject(body))
    return { message: typeof body === 'string' && body !== '' ? body : undefined, type: undefined, code: undefined, param: undefined, provider: undefined };
  const inner = body['error'];
  const source = isPlainObject(inner) ? inner : body;
  const metadata = isPlainObject(source['metadata']) ? source['metadata'] : undefined;
  return {
    message: typeof inner === 'string' ? inner : (messageText(source['message']) ?? text(source['detail']) ?? messageText(body['message'])),
    type: text(source['type']),
    code: text(source['code']),
    param: text(source['param']),
    provider: text(metadata?.['provider_name']),
  };
}

function messageText(value: unknown): string | undefined {
  if (isPlainObject(value)) return text(value['error']) ?? JSON.stringify(value);
  return text(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** The parameter a LiteLLM UnsupportedParamsError names: `parameters: ['reasoning_effort']`, or `doesn't support temperature=0.1`. */
function rejectedParam(fields: GatewayErrorFields): string | undefined {
  const message = fields.message ?? '';
  const listed = /support parameters: \[([^\]]*)\]/.exec(message)?.[1];
  const names = listed?.match(/[A-Za-z_][A-Za-z0-9_]*/g);
  if (names && names.length > 0) return names.join(', ');
  return /(?:doesn't|does not) support ([A-Za-z_][A-Za-z0-9_]*)/.exec(message)?.[1] ?? fields.param;
}

/** How to stop sending a parameter hermes-generate sends on its own account. */
function flagFix(param: string | undefined): string {
  if (param?.includes('reasoning_effort')) return 'leave out --reasoning-effort, which sends reasoning_effort';
  if (param !== undefined && /\btools?\b|tool_choice/.test(param)) return 'offer no tools (--toolsets), which sends tools';
  return 'drop the setting that sends it';
}

function requiredHeaders(fields: GatewayErrorFields): string[] {
  return [...new Set((fields.message ?? '').toLowerCase().match(/x-portkey-[a-z-]+/g) ?? [])];
}
