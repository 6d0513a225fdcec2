// Why a prompt has no trajectory: its model calls finally failed (after the client's bounded
// retries), the endpoint's answer was not a completion, or its row cannot be run as it is (a cwd
// that is not a directory, no image for the docker sandbox). A failed prompt is reported and
// counted, never written. Failures a later run may not meet (unreachable endpoint, rate limits, server
// errors) are retryable; the rest (a rejected key, an unknown model, a bad request) need a fix first.
import { REPLY_FAULT_HEADER } from '@hermes-datagen/core/endpoint';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { InvalidReplyError } from './modelReply.js';
import { WorkspaceError } from './tools/workspace.js';

/** A row that cannot be run as it is; the message says what to change. */
export class PromptSetupError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'PromptSetupError';
  }
}

export interface PromptFailure {
  readonly retryable: boolean;
  /** A bug in hermes-generate, not an endpoint or row problem: the run exits 70 once the others are done. */
  readonly internal?: boolean;
  /** One line for stderr, ending in what to do. */
  readonly reason: string;
}

const DOCTOR = "run 'hermes-generate doctor' to check the endpoint configuration";

/** The failure an error stands for, or undefined when it is none of these (a bug: let it surface). */
export function promptFailure(error: unknown): PromptFailure | undefined {
  if (error instanceof PromptSetupError || error instanceof WorkspaceError) return { retryable: false, reason: error.message };
  if (error instanceof InvalidReplyError) return { retryable: false, reason: `${error.message}; ${DOCTOR}` };
  if (error instanceof APIConnectionTimeoutError) {
    return { retryable: true, reason: 'the endpoint did not answer in time, even after retries; try again later or with a lower --concurrency' };
  }
  if (error instanceof APIConnectionError) {
    return { retryable: true, reason: `could not reach the endpoint (${connectionCause(error)}), even after retries; check that it is running, or ${DOCTOR}` };
  }
  if (!(error instanceof APIError) || error.status === undefined) return undefined;
  const status = error.status;
  const said = oneLine(error.message);
  if (error.headers?.get(REPLY_FAULT_HEADER) === 'malformed') {
    return { retryable: true, reason: `${said.replace(/^\d+ /, '')}; still malformed after retries: run again later` };
  }
  if (status === 429) return { retryable: true, reason: `rate limited: ${said}; still limited after retries: lower --concurrency and run again` };
  if (status >= 500) return { retryable: true, reason: `the endpoint failed: ${said}; still failing after retries: run again later` };
  if (status === 401 || status === 403) return { retryable: false, reason: `the endpoint refused the key: ${said}; ${DOCTOR}` };
  if (status === 404) return { retryable: false, reason: `not found: ${said}; check --model and --base-url, or ${DOCTOR}` };
  return { retryable: false, reason: `the endpoint rejected the request: ${said}` };
}

/** An error that is none of the failures above: a bug, reported with its stack so it can be fixed. */
export function internalFailure(error: unknown): PromptFailure {
  const detail = error instanceof Error ? error.stack ?? error.message : String(error);
  return { retryable: false, internal: true, reason: `internal error, a bug in hermes-generate; please report it with the command that caused it:\n${detail}` };
}

/** `ECONNREFUSED`, `ENOTFOUND` and the like, from the fetch error the client wraps. */
function connectionCause(error: APIConnectionError): string {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    cause = cause.cause;
  }
  return oneLine(error.message);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
