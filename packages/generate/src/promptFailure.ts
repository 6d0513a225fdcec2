// Why a prompt has no trajectory: its model calls finally failed (after the client's bounded
// retries), the endpoint's answer was not a completion, or its row cannot be run as it is (a cwd
// that is not a directory, no image for the docker sandbox). A failed model call is judged by
// doctor's own diagnosis (doctor/judgeExchange.ts), so a run and doctor name it alike, and its id decides the
// exit code (failureKinds.ts). A failed prompt is reported, counted and listed as a failure record
// (schemas/failure.schema.json: in --rejects, and in a run directory's failures.jsonl), never written
// as a trajectory.
import { STATUS_CODES } from 'node:http';
import { redact, type ApiKey, type Place } from '@hermes-datagen/core';
import { DEFAULT_RETRY_AFTER_CAP_MS, endpointUrl, QuotaExhaustedError, REPLY_FAULT_HEADER, type Endpoint } from '@hermes-datagen/core/endpoint';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai/core/error';
import { BatchRequestFailed } from './batchApi/batchRounds.js';
import { judgeChat, type ChatContext, type Exchange, type HttpExchange } from './doctor/judgeExchange.js';
import { FAILURE_KINDS, type FailureKindId } from './failureKinds.js';
import { InvalidReplyError } from './modelReply.js';
import { WorkspaceError } from './tools/workspace.js';

/** A row that cannot be run as it is; the message says what to change. */
export class PromptSetupError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'PromptSetupError';
  }
}

/** The reason a prompt is aborted with when it ran longer than --prompt-timeout. */
export class PromptTimeout extends Error {
  public constructor(seconds: number) {
    super(`the prompt ran longer than --prompt-timeout ${seconds}s and was stopped; it runs again on --resume`);
    this.name = 'PromptTimeout';
  }
}

/** The reason a prompt is aborted with when it still ran --grace seconds after the input failed (a bad line). */
export class InputStopped extends Error {
  public constructor(graceSeconds: number) {
    super(`stopped unfinished ${graceSeconds}s after the input stopped at a bad line (--grace); it can run again as it is`);
    this.name = 'InputStopped';
  }
}

/** The failure of a prompt aborted for one of the reasons above; undefined for any other reason (a signal). */
export function abortFailure(reason: unknown): PromptFailure | undefined {
  if (reason instanceof PromptTimeout) return failure('prompt-timeout', reason.message);
  if (reason instanceof InputStopped) return failure('input-stopped', reason.message);
  return undefined;
}

export interface PromptFailure {
  /** The failure's id in the one table (failureKinds.ts); `internal` for a bug in hermes-generate (exit 70). */
  readonly kind: FailureKindId | 'internal';
  /** It may pass on a later run as it is (exit 4); otherwise it needs a fix first (exit 1) or is a bug. */
  readonly retryable: boolean;
  /** For stderr and the failure record: what happened, and what to do. */
  readonly reason: string;
}

/**
 * An error of a prompt's agent run (thrown by promptRunner), with what its diagnosis names: the
 * request's URL, the model, the key, the time limit.
 */
export class AgentRunError extends Error {
  public constructor(
    public override readonly cause: unknown,
    public readonly context: FailureContext,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'AgentRunError';
  }
}

/** What a diagnosis names: the request's URL, the model, the key, the time limit. */
export interface FailureContext {
  readonly url: string;
  readonly chat: ChatContext;
}

export function failureContext(endpoint: Pick<Endpoint, 'baseUrl' | 'model' | 'apiKeyEnv' | 'apiKey'>, requestTimeoutMs: number): FailureContext {
  return {
    url: endpointUrl(endpoint.baseUrl, 'chat/completions'),
    chat: {
      model: endpoint.model,
      key: `$${endpoint.apiKeyEnv} (fingerprint ${endpoint.apiKey.fingerprint})`,
      keyVariable: endpoint.apiKeyEnv,
      timeoutMs: requestTimeoutMs,
      timeoutFlag: '--request-timeout',
      retryAfterCapMs: DEFAULT_RETRY_AFTER_CAP_MS,
    },
  };
}

/** The failure an error stands for, or undefined when it is none of these (a bug: internalFailure). */
export function promptFailure(error: unknown): PromptFailure | undefined {
  if (error instanceof PromptSetupError || error instanceof WorkspaceError) return failure('prompt-setup', error.message);
  if (!(error instanceof AgentRunError)) return undefined;
  // The rate limiter gave up on the run (no successful call for --quota-wait): its reason says why.
  if (error.cause instanceof QuotaExhaustedError) return failure('rate-limited', error.cause.message);
  if (error.cause instanceof BatchRequestFailed) return failure('batch-failed', error.cause.message);
  const exchange = exchangeOf(error.cause, error.context.url);
  if (exchange === undefined) return undefined;
  const { check } = judgeChat(exchange, error.context.chat);
  // Only a reply the loop could not read while doctor's checks pass (they read no further).
  if (check.status !== 'fail') return failure('no-choices', error.message);
  const after = FAILURE_KINDS[check.id as FailureKindId]?.exit === 4 ? " (still so after the client's retries)" : '';
  return failure(check.id as FailureKindId, `${check.message}${after}${check.fix ? `; fix: ${check.fix}` : ''}`);
}

/** An error that is none of the failures above: a bug, reported with its stack so it can be fixed. */
export function internalFailure(error: unknown): PromptFailure {
  const bug = error instanceof AgentRunError ? error.cause : error;
  const detail = bug instanceof Error ? (bug.stack ?? bug.message) : String(bug);
  return {
    kind: 'internal',
    retryable: false,
    reason: `internal error, a bug in hermes-generate; please report it with the command that caused it:\n${detail}`,
  };
}

/** One line of --rejects or failures.jsonl (schemas/failure.schema.json). */
export interface FailureRecord {
  readonly id: string;
  readonly prompt_index: number;
  /** Run mode: which sample of the row (--samples). */
  readonly sample?: number;
  readonly source: string;
  readonly line: number;
  readonly error_class: PromptFailure['kind'];
  readonly retryable: boolean;
  readonly reason: string;
  readonly failed_at: string;
  /** The prompt's input line as read, so the failed prompts can be run again as they are; for a sub-agent, its task ({prompt, toolsets}). */
  readonly raw?: string;
  /** Run mode, a sub-agent (delegate_task): the record that delegated it, and its depth (the root is 0). */
  readonly parent_id?: string;
  readonly depth?: number;
}

export interface FailedPrompt {
  readonly id: string;
  readonly promptIndex: number;
  readonly place: Place;
  readonly sample?: number;
  readonly raw?: string;
  readonly parentId?: string;
  readonly depth?: number;
}

/** The failure record of a prompt; the key is redacted from the reason, whatever an endpoint echoed. */
export function failureRecord(prompt: FailedPrompt, failure: PromptFailure, secret: ApiKey | undefined, failedAt = new Date()): FailureRecord {
  return {
    id: prompt.id,
    prompt_index: prompt.promptIndex,
    ...(prompt.sample === undefined ? {} : { sample: prompt.sample }),
    source: prompt.place.source,
    line: prompt.place.line,
    error_class: failure.kind,
    retryable: failure.retryable,
    reason: redact(failure.reason, secret),
    failed_at: failedAt.toISOString(),
    ...(prompt.raw === undefined ? {} : { raw: prompt.raw }),
    ...(prompt.parentId === undefined ? {} : { parent_id: prompt.parentId, depth: prompt.depth }),
  };
}

function failure(kind: FailureKindId, reason: string): PromptFailure {
  return { kind, retryable: FAILURE_KINDS[kind].exit === 4, reason };
}

/** The exchange an error of the client stands for, as doctor would have recorded it. */
function exchangeOf(error: unknown, url: string): Exchange | undefined {
  const request = { method: 'POST', url };
  if (error instanceof APIConnectionTimeoutError) return { kind: 'error', ...request, code: undefined, timedOut: true, message: error.message };
  if (error instanceof APIConnectionError)
    return { kind: 'error', ...request, code: connectionCause(error), timedOut: false, message: innermostMessage(error) };
  if (error instanceof InvalidReplyError) return response(request, 200, '', typeof error.body === 'string' ? error.body : JSON.stringify(error.body));
  if (!(error instanceof APIError) || error.status === undefined) return undefined;
  const headers = error.headers;
  const inner = error.error as Record<string, unknown> | undefined;
  // A 200 that was no completion reached the client as the failure it stands for (core chatClient.ts); judged as what came.
  const fault = headers?.get(REPLY_FAULT_HEADER);
  if (fault === 'malformed' && typeof inner?.['body'] === 'string') return response(request, 200, 'application/json', inner['body']);
  if (fault === 'error-in-200') return response(request, 200, 'application/json', JSON.stringify({ error: inner ?? null }));
  const body = inner !== undefined ? JSON.stringify({ error: inner }) : error.message.replace(/^\d+ (status code \(no body\))?/, '');
  return {
    ...response(request, error.status, headers?.get('content-type') ?? '', body),
    retryAfter: headers?.get('retry-after') ?? undefined,
    retryAfterMs: headers?.get('retry-after-ms') ?? undefined,
  };
}

function response(request: { method: string; url: string }, status: number, contentType: string, body: string): HttpExchange {
  return {
    kind: 'response',
    ...request,
    status,
    statusText: STATUS_CODES[status] ?? '',
    contentType,
    body,
    retryAfter: undefined,
    retryAfterMs: undefined,
    elapsedMs: 0,
  };
}

/** `ECONNREFUSED`, `ECONNRESET` and the like, from the fetch error the client wraps. */
function connectionCause(error: APIConnectionError): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    cause = cause.cause;
  }
  return undefined;
}

function innermostMessage(error: Error): string {
  let current: Error = error;
  while (current.cause instanceof Error) current = current.cause;
  return current.message;
}
