// The script format (documented in packages/testkit/README.md): what the endpoint answers, per prompt,
// and which faults it injects. Scripts are JSON written by hand, so validation names the exact place
// of a mistake and rejects unknown keys (a misspelt key would otherwise be silently ignored).
import { loadOptionFile, UsageError } from '@hermes-datagen/core';

/** Where a reply's reasoning goes: a message field, or inline tags at the start of the content. */
export type ReasoningField = 'reasoning' | 'reasoning_content' | 'reasoning_details' | 'thinking' | 'inline_think' | 'inline_scratchpad';
export const REASONING_FIELDS: readonly ReasoningField[] = [
  'reasoning',
  'reasoning_content',
  'reasoning_details',
  'thinking',
  'inline_think',
  'inline_scratchpad',
];

/** `error` and `MALFORMED_FUNCTION_CALL` are what some providers send for a turn that went wrong. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'MALFORMED_FUNCTION_CALL';
const FINISH_REASONS: readonly FinishReason[] = ['stop', 'tool_calls', 'length', 'content_filter', 'error', 'MALFORMED_FUNCTION_CALL'];

/** Matches the text of the first user message of a request. */
export type PromptMatch = { exact: string } | { contains: string } | { regex: string; flags?: string };

export interface ScriptedToolCall {
  /** null sends `"name": null`, as a broken provider may. */
  name: string | null;
  /** An object is sent as its JSON text; a string is sent as is (so it can be invalid JSON on purpose). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Of prompt_tokens, read from the prompt cache: sent as prompt_tokens_details.cached_tokens (OpenAI's form). */
  cached_tokens?: number;
  /** The gateway's own price of the call in USD, sent as usage.cost (OpenRouter's form). */
  cost?: number;
}

export interface ScriptedReply {
  content?: string | null;
  reasoning?: string;
  reasoning_field?: ReasoningField;
  tool_calls?: ScriptedToolCall[];
  /** Defaults to `tool_calls` when the reply has tool calls, else `stop`. */
  finish_reason?: FinishReason;
  /** Defaults to an estimate of about four characters a token. */
  usage?: ScriptedUsage;
}

export interface Sequence {
  match: PromptMatch;
  /** Reply n answers a request holding n assistant messages; past the end, a final text answer repeats. */
  replies: ScriptedReply[];
}

export type FaultKind =
  | 'rate_limit'
  | 'server_error'
  | 'unavailable'
  | 'slow'
  | 'timeout'
  | 'drop'
  | 'truncated'
  | 'html'
  | 'no_choices'
  | 'error_in_200'
  | 'unauthorized'
  | 'oauth_expired'
  | 'hallucinated_tool'
  | 'invalid_arguments';
export const FAULT_KINDS: readonly FaultKind[] = [
  'rate_limit',
  'server_error',
  'unavailable',
  'slow',
  'timeout',
  'drop',
  'truncated',
  'html',
  'no_choices',
  'error_in_200',
  'unauthorized',
  'oauth_expired',
  'hallucinated_tool',
  'invalid_arguments',
];

/** Every condition given must hold. `nth` counts chat-completion requests received, from 1. */
export interface FaultWhen {
  prompt?: PromptMatch;
  step?: number;
  nth?: number[];
  model?: string;
}

export interface FaultRule {
  kind: FaultKind;
  when?: FaultWhen;
  /** Probability in [0, 1] that a request meeting `when` gets the fault (a seeded, deterministic draw). */
  rate?: number;
  /** rate_limit and unavailable: the `retry-after` header in seconds (rate_limit defaults to 1). */
  retry_after_s?: number;
  /** rate_limit and unavailable: an additional `retry-after-ms` header. */
  retry_after_ms?: number;
  /** rate_limit: more response headers (e.g. x-ratelimit-remaining-requests); with them, no default retry-after. */
  headers?: Record<string, string>;
  /** slow: how long to wait before the normal reply (default 2000). */
  delay_ms?: number;
  /** hallucinated_tool: the name called (default web_search_v2). */
  tool_name?: string;
  /** error_in_200: the `code` of the error object sent with status 200 (default 429). */
  code?: number;
}

export interface PolicyOptions {
  reasoning_field?: ReasoningField;
}

export interface Script {
  /** When given, a request for any other model gets 404 model_not_found. */
  models?: string[];
  sequences?: Sequence[];
  faults?: FaultRule[];
  /** Options of the rule-based policy that answers prompts no sequence matches. */
  policy?: PolicyOptions;
}

/** A script whose content is malformed: a usage error (exit 2) when it comes from the CLI. */
export class ScriptError extends UsageError {}

/** The --script file, relative to cwd; a fault in it is a usage error (exit 2) naming it. */
export function loadScript(path: string, cwd = '.'): Script {
  return parseScript(loadOptionFile({ option: '--script', path, cwd }, 'json'), path);
}

export function promptMatches(match: PromptMatch, text: string): boolean {
  if ('exact' in match) return text === match.exact;
  if ('contains' in match) return text.includes(match.contains);
  return new RegExp(match.regex, match.flags).test(text);
}

/** Checks a script given as a value (parsed JSON or an in-process object); `source` names it in errors. */
export function parseScript(value: unknown, source: string): Script {
  const reader = new Reader(source);
  const root = reader.object(value, '', ['models', 'sequences', 'faults', 'policy']);
  const script: Script = {};
  if (root.models !== undefined) script.models = reader.array(root.models, '/models').map((m, i) => reader.string(m, `/models/${i}`));
  if (root.sequences !== undefined) {
    script.sequences = reader.array(root.sequences, '/sequences').map((s, i) => reader.sequence(s, `/sequences/${i}`));
  }
  if (root.faults !== undefined) script.faults = reader.array(root.faults, '/faults').map((f, i) => reader.fault(f, `/faults/${i}`));
  if (root.policy !== undefined) {
    const policy = reader.object(root.policy, '/policy', ['reasoning_field']);
    script.policy = {};
    if (policy.reasoning_field !== undefined) {
      script.policy.reasoning_field = reader.oneOf(policy.reasoning_field, '/policy/reasoning_field', REASONING_FIELDS);
    }
  }
  return script;
}

type Fields = Record<string, unknown>;

class Reader {
  public constructor(private readonly source: string) {}

  public fail(path: string, problem: string): never {
    throw new ScriptError(`script ${this.source} at ${path || '/'}: ${problem}`);
  }

  /** Without `allowed`, any keys are accepted (tool-call arguments). */
  public object(value: unknown, path: string, allowed?: readonly string[]): Fields {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, 'expected an object');
    for (const key of Object.keys(value)) {
      if (allowed && !allowed.includes(key)) this.fail(path, `unknown key "${key}" (allowed: ${allowed.join(', ')})`);
    }
    return value as Fields;
  }

  public array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'expected an array');
    return value;
  }

  public string(value: unknown, path: string): string {
    if (typeof value !== 'string') this.fail(path, 'expected a string');
    return value;
  }

  public number(value: unknown, path: string, min: number, max = Infinity): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      this.fail(path, `expected a number from ${min}${max === Infinity ? ' up' : ` to ${max}`}`);
    }
    return value;
  }

  public integer(value: unknown, path: string, min: number): number {
    if (!Number.isInteger(value) || (value as number) < min) this.fail(path, `expected a whole number from ${min} up`);
    return value as number;
  }

  public oneOf<T extends string>(value: unknown, path: string, choices: readonly T[]): T {
    if (!choices.includes(value as T)) this.fail(path, `expected one of ${choices.join(', ')}`);
    return value as T;
  }

  public promptMatch(value: unknown, path: string): PromptMatch {
    const fields = this.object(value, path, ['exact', 'contains', 'regex', 'flags']);
    const forms = ['exact', 'contains', 'regex'].filter((key) => fields[key] !== undefined);
    if (forms.length !== 1) this.fail(path, 'give exactly one of "exact", "contains" or "regex"');
    if (fields.flags !== undefined && fields.regex === undefined) this.fail(path, '"flags" goes with "regex" only');
    if (fields.exact !== undefined) return { exact: this.string(fields.exact, `${path}/exact`) };
    if (fields.contains !== undefined) return { contains: this.string(fields.contains, `${path}/contains`) };
    const regex = this.string(fields.regex, `${path}/regex`);
    const flags = fields.flags === undefined ? undefined : this.string(fields.flags, `${path}/flags`);
    try {
      new RegExp(regex, flags);
    } catch (error) {
      this.fail(path, `invalid regex: ${(error as Error).message}`);
    }
    return flags === undefined ? { regex } : { regex, flags };
  }

  public sequence(value: unknown, path: string): Sequence {
    const fields = this.object(value, path, ['match', 'replies']);
    if (fields.match === undefined) this.fail(path, 'missing "match"');
    const replies = this.array(fields.replies, `${path}/replies`).map((r, i) => this.reply(r, `${path}/replies/${i}`));
    if (replies.length === 0) this.fail(`${path}/replies`, 'give at least one reply');
    return { match: this.promptMatch(fields.match, `${path}/match`), replies };
  }

  public reply(value: unknown, path: string): ScriptedReply {
    const fields = this.object(value, path, ['content', 'reasoning', 'reasoning_field', 'tool_calls', 'finish_reason', 'usage']);
    const reply: ScriptedReply = {};
    if (fields.content === null) reply.content = null;
    else if (fields.content !== undefined) reply.content = this.string(fields.content, `${path}/content`);
    if (fields.reasoning !== undefined) reply.reasoning = this.string(fields.reasoning, `${path}/reasoning`);
    if (fields.reasoning_field !== undefined) {
      reply.reasoning_field = this.oneOf(fields.reasoning_field, `${path}/reasoning_field`, REASONING_FIELDS);
    }
    if (fields.tool_calls !== undefined) {
      reply.tool_calls = this.array(fields.tool_calls, `${path}/tool_calls`).map((c, i) => this.toolCall(c, `${path}/tool_calls/${i}`));
    }
    if (fields.finish_reason !== undefined) {
      reply.finish_reason = this.oneOf(fields.finish_reason, `${path}/finish_reason`, FINISH_REASONS);
    }
    if (fields.usage !== undefined) {
      const usage = this.object(fields.usage, `${path}/usage`, ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'cost']);
      reply.usage = {
        prompt_tokens: this.integer(usage.prompt_tokens, `${path}/usage/prompt_tokens`, 0),
        completion_tokens: this.integer(usage.completion_tokens, `${path}/usage/completion_tokens`, 0),
      };
      if (usage.cached_tokens !== undefined) reply.usage.cached_tokens = this.integer(usage.cached_tokens, `${path}/usage/cached_tokens`, 0);
      if (usage.cost !== undefined) reply.usage.cost = this.number(usage.cost, `${path}/usage/cost`, 0);
    }
    return reply;
  }

  public toolCall(value: unknown, path: string): ScriptedToolCall {
    const fields = this.object(value, path, ['name', 'arguments', 'id']);
    const call: ScriptedToolCall = { name: fields.name === null ? null : this.string(fields.name, `${path}/name`), arguments: {} };
    if (typeof fields.arguments === 'string') call.arguments = fields.arguments;
    else if (fields.arguments !== undefined) call.arguments = this.object(fields.arguments, `${path}/arguments`);
    if (fields.id !== undefined) call.id = this.string(fields.id, `${path}/id`);
    return call;
  }

  public fault(value: unknown, path: string): FaultRule {
    const fields = this.object(value, path, ['kind', 'when', 'rate', 'retry_after_s', 'retry_after_ms', 'headers', 'delay_ms', 'tool_name', 'code']);
    const rule: FaultRule = { kind: this.oneOf(fields.kind, `${path}/kind`, FAULT_KINDS) };
    if (fields.when !== undefined) rule.when = this.when(fields.when, `${path}/when`);
    if (fields.rate !== undefined) rule.rate = this.number(fields.rate, `${path}/rate`, 0, 1);
    if (fields.retry_after_s !== undefined) rule.retry_after_s = this.number(fields.retry_after_s, `${path}/retry_after_s`, 0);
    if (fields.retry_after_ms !== undefined) rule.retry_after_ms = this.number(fields.retry_after_ms, `${path}/retry_after_ms`, 0);
    if (fields.headers !== undefined) {
      const headers = this.object(fields.headers, `${path}/headers`);
      rule.headers = Object.fromEntries(Object.entries(headers).map(([name, text]) => [name, this.string(text, `${path}/headers/${name}`)]));
    }
    if (fields.delay_ms !== undefined) rule.delay_ms = this.number(fields.delay_ms, `${path}/delay_ms`, 0);
    if (fields.tool_name !== undefined) rule.tool_name = this.string(fields.tool_name, `${path}/tool_name`);
    if (fields.code !== undefined) rule.code = this.integer(fields.code, `${path}/code`, 100);
    return rule;
  }

  public when(value: unknown, path: string): FaultWhen {
    const fields = this.object(value, path, ['prompt', 'step', 'nth', 'model']);
    const when: FaultWhen = {};
    if (fields.prompt !== undefined) when.prompt = this.promptMatch(fields.prompt, `${path}/prompt`);
    if (fields.step !== undefined) when.step = this.integer(fields.step, `${path}/step`, 0);
    if (fields.nth !== undefined) {
      const list = typeof fields.nth === 'number' ? [fields.nth] : this.array(fields.nth, `${path}/nth`);
      when.nth = list.map((n, i) => this.integer(n, `${path}/nth/${i}`, 1));
    }
    if (fields.model !== undefined) when.model = this.string(fields.model, `${path}/model`);
    return when;
  }
}
