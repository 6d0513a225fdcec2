// Fault injection: which rule (if any) a request meets, and what each fault does. Rules are tried in
// order; the first whose `when` holds and whose seeded draw falls under its `rate` applies.
import type { ServerResponse } from 'node:http';
import { unitDraw } from './fingerprint.js';
import { errorBody, sendJson, type HeaderMap } from './http.js';
import { promptMatches, type FaultKind, type FaultRule, type FaultWhen, type ScriptedReply } from './script.js';

export interface FaultContext {
  prompt: string;
  step: number;
  /** The request's number among the chat-completion requests received, from 1. */
  nth: number;
  model: string;
  /** A digest of the request body. */
  requestDigest: string;
}

export const DEFAULT_HALLUCINATED_TOOL = 'web_search_v2';
const DEFAULT_RETRY_AFTER_S = 1;
export const DEFAULT_SLOW_DELAY_MS = 2000;

/** Faults that change the reply's content rather than the HTTP exchange. */
export const REPLY_FAULTS: readonly FaultKind[] = ['hallucinated_tool', 'invalid_arguments'];

function holds(when: FaultWhen | undefined, context: FaultContext): boolean {
  if (when === undefined) return true;
  return (
    (when.prompt === undefined || promptMatches(when.prompt, context.prompt)) &&
    (when.step === undefined || when.step === context.step) &&
    (when.nth === undefined || when.nth.includes(context.nth)) &&
    (when.model === undefined || when.model === context.model)
  );
}

export class FaultPicker {
  /** How often each request body has been seen: a retry of the same request gets a fresh draw. */
  private readonly seen = new Map<string, number>();

  public constructor(
    private readonly rules: readonly FaultRule[],
    private readonly seed: number,
  ) {}

  /**
   * Draws depend on the seed, the rule, the request body and how often that body came before, not on
   * arrival order: parallel conversations get the same faults in every run.
   */
  public pick(context: FaultContext): FaultRule | undefined {
    const occurrence = this.seen.get(context.requestDigest) ?? 0;
    this.seen.set(context.requestDigest, occurrence + 1);
    return this.rules.find(
      (rule, index) =>
        holds(rule.when, context) && (rule.rate === undefined || unitDraw(`${this.seed}:${index}:${context.requestDigest}:${occurrence}`) < rule.rate),
    );
  }
}

/** A proper prefix of a JSON object's text is never valid JSON. */
function cutShort(argumentsText: string): string {
  return argumentsText.slice(0, -1);
}

export function applyReplyFault(rule: FaultRule, reply: ScriptedReply, context: FaultContext, offered: readonly string[]): ScriptedReply {
  if (rule.kind === 'hallucinated_tool') {
    return {
      ...reply,
      tool_calls: [{ name: rule.tool_name ?? DEFAULT_HALLUCINATED_TOOL, arguments: { query: context.prompt } }],
      finish_reason: 'tool_calls',
    };
  }
  const [first, ...rest] = reply.tool_calls ?? [];
  if (first !== undefined) {
    const text = typeof first.arguments === 'string' ? first.arguments : JSON.stringify(first.arguments);
    return { ...reply, tool_calls: [{ ...first, arguments: cutShort(text) }, ...rest] };
  }
  return {
    ...reply,
    tool_calls: [{ name: offered[0] ?? 'terminal', arguments: cutShort(JSON.stringify({ command: 'ls -la' })) }],
    finish_reason: 'tool_calls',
  };
}

function retryHeaders(rule: FaultRule, defaultSeconds: number | undefined): HeaderMap {
  const headers: HeaderMap = {};
  const seconds = rule.retry_after_s ?? defaultSeconds;
  if (seconds !== undefined) headers['retry-after'] = String(seconds);
  if (rule.retry_after_ms !== undefined) headers['retry-after-ms'] = String(rule.retry_after_ms);
  return headers;
}

const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Welcome</title></head>' + '<body><h1>Welcome to our gateway</h1><p>Sign in to continue.</p></body></html>\n';

/** What a fault answers in place of a completion: a status and a body (JSON, or the text of an HTML page). */
export interface FaultAnswer {
  status: number;
  body: unknown;
  headers: HeaderMap;
  /** The body is an HTML page's text, sent as text/html. */
  html?: true;
}

/** The HTTP answer of a fault; undefined for faults that answer otherwise (reply faults, transport faults). */
export function httpFaultAnswer(rule: FaultRule): FaultAnswer | undefined {
  switch (rule.kind) {
    case 'rate_limit':
      return {
        status: 429,
        body: errorBody({ message: 'Rate limit reached for requests. Please slow down.', type: 'rate_limit_error', code: 'rate_limit_exceeded' }),
        headers: { ...retryHeaders(rule, rule.headers === undefined ? DEFAULT_RETRY_AFTER_S : undefined), ...rule.headers },
      };
    case 'server_error':
      return {
        status: 500,
        body: errorBody({ message: 'The server had an error while processing your request.', type: 'server_error', code: null }),
        headers: {},
      };
    case 'unavailable':
      return {
        status: 503,
        body: errorBody({ message: 'The service is temporarily overloaded. Try again later.', type: 'overloaded_error', code: 'service_unavailable' }),
        headers: retryHeaders(rule, undefined),
      };
    case 'unauthorized':
      return { status: 401, body: errorBody({ message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' }), headers: {} };
    case 'oauth_expired':
      return { status: 401, body: { error: { type: 'invalid_token', message: 'OAuth token expired' } }, headers: {} };
    case 'html':
      return { status: 200, body: HTML_PAGE, headers: {}, html: true };
    case 'no_choices':
      return { status: 200, body: { error: { message: 'Upstream provider returned an empty response', code: 502 } }, headers: {} };
    case 'gateway_error':
      return { status: rule.status ?? 400, body: rule.body ?? {}, headers: rule.headers ?? {} };
    case 'error_in_200':
      return { status: 200, body: { error: { message: 'Provider returned error', code: rule.code ?? 429 } }, headers: {} };
    default:
      return undefined;
  }
}

export function sendFaultAnswer(response: ServerResponse, answer: FaultAnswer): void {
  if (answer.html === true) {
    const page = String(answer.body);
    response.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page), ...answer.headers });
    response.end(page);
    return;
  }
  sendJson(response, answer.status, answer.body, answer.headers);
}
