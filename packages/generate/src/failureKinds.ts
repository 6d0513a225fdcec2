// The one table of what an endpoint failure means, for doctor and for every failed prompt of a run:
// both name a failure by the same id (doctor's check id, a failure record's error_class), and the
// id alone decides the exit code. 1: it needs a fix before a run can pass (a refused key, an unknown
// model, a wrong path, a web page); 4: worth running again later as it is (rate limits, server
// errors, timeouts, refused or reset connections). The --help text and the README are made from it.
import { ExitCode } from '@hermes-datagen/core';
import type { GatewayErrorKind } from '@hermes-datagen/core/endpoint';

export type FailureExit = typeof ExitCode.checksFailed | typeof ExitCode.retryable;

interface FailureKind {
  readonly exit: FailureExit;
  /** What the endpoint did, for the table in --help. */
  readonly what: string;
  /**
   * Every prompt would meet it alike (the account, not the prompt): the first one stops the run, and
   * this is what the user must check.
   */
  readonly stopsRun?: string;
}

export const FAILURE_KINDS = {
  unauthorized: { exit: 1, what: '401: the key is refused' },
  oauth: { exit: 1, what: '401/403 with an OAuth error: a token where an API key belongs' },
  forbidden: { exit: 1, what: '403: the key may not do this' },
  'model-not-found': { exit: 1, what: 'the gateway does not know the model' },
  'path-404': { exit: 1, what: '404/405: nothing serves chat completions there (e.g. /v1 missing or doubled)' },
  'not-an-api': { exit: 1, what: 'an HTML page: the base URL points at a website' },
  'no-choices': { exit: 1, what: 'JSON that is no chat completion' },
  'insufficient-quota': {
    exit: 1,
    what: 'the quota or credit is used up (insufficient_quota 429, 402): never retried',
    stopsRun: 'check your plan and billing',
  },
  'key-unverifiable': { exit: 1, what: 'the gateway cannot check the key (LiteLLM without its key database)' },
  'param-rejected': { exit: 1, what: 'the deployment rejects a parameter sent (UnsupportedParamsError, tools)' },
  'header-required': { exit: 1, what: 'the gateway needs a header (Portkey x-portkey-*): pass it with --header' },
  'context-length': { exit: 1, what: "the prompt is longer than the model's context (that prompt only)" },
  'content-filter': { exit: 1, what: "the provider's content filter refused the prompt (that prompt only)" },
  'http-error': { exit: 1, what: 'any other 4xx: the request is refused as it is' },
  'no-batch-api': { exit: 1, what: 'the endpoint serves no batch API (/files, /batches) for --batch-api' },
  dns: { exit: 1, what: 'the host name does not resolve' },
  tls: { exit: 1, what: 'the TLS certificate is refused' },
  'prompt-setup': { exit: 1, what: 'the row cannot run as it is (its cwd, its docker image)' },
  'rate-limited': { exit: 4, what: '429, also as {"error":{"code":429}} in a 200' },
  'server-error': { exit: 4, what: '5xx, also as an error object in a 200' },
  'malformed-reply': { exit: 4, what: 'a 200 whose body is cut short or not JSON' },
  timeout: { exit: 4, what: 'no answer in time (--request-timeout; doctor: --timeout)' },
  'prompt-timeout': { exit: 4, what: 'the prompt ran past its time limit' },
  'input-stopped': { exit: 4, what: 'the prompt still ran --grace seconds after the input stopped at a bad line' },
  'batch-failed': { exit: 4, what: 'the batch API failed a request in each of its batches (--batch-retries), or it fit in none' },
  'connection-refused': { exit: 4, what: 'nothing listens at the address' },
  'connection-reset': { exit: 4, what: 'the connection was reset or closed mid-request' },
  'network-error': { exit: 4, what: 'another network failure' },
  'proxy-dead': { exit: 4, what: 'the proxy that requests go through does not answer' },
} as const satisfies Record<string, FailureKind> & Record<GatewayErrorKind, FailureKind>;

export type FailureKindId = keyof typeof FAILURE_KINDS;

export function isFailureKind(id: string): id is FailureKindId {
  return Object.hasOwn(FAILURE_KINDS, id);
}

/**
 * What stderr says when a failure of this kind stops the whole run, with `others` prompts still
 * running; undefined when it fails its own prompt alone.
 */
export function runStopMessage(id: string, others: number): string | undefined {
  const advice = isFailureKind(id) ? (FAILURE_KINDS[id] as FailureKind).stopsRun : undefined;
  if (advice === undefined) return undefined;
  const running = others === 1 ? '1 other prompt running stops' : `${others} other prompts running stop`;
  return `the run stops at the first ${id} failure (${advice}): no new prompt starts, ${running} unwritten`;
}

/**
 * The exit code of a set of failures: 1 when any needs a fix, else 4; 0 when there are none. An id
 * outside the table (a bug) counts as needing a fix, so it is never mistaken for a passing glitch.
 */
export function failureExitCode(ids: Iterable<string>): number {
  let code: number = ExitCode.ok;
  for (const id of ids) {
    const exit = isFailureKind(id) ? FAILURE_KINDS[id].exit : ExitCode.checksFailed;
    if (exit === ExitCode.checksFailed) return exit;
    code = exit;
  }
  return code;
}

/** The table for --help: each exit code with the failures that lead to it. */
export function failureKindsHelp(): string {
  const rows = (exit: FailureExit): string[] =>
    Object.entries(FAILURE_KINDS)
      .filter(([, kind]) => kind.exit === exit)
      .map(([id, kind]) => `    ${id.padEnd(19)} ${kind.what}`);
  return [
    "Failures (doctor's check ids, error_class of a failed prompt) and their exit codes:",
    '  1  needs a fix before running again:',
    ...rows(1),
    '  4  worth running again later, as it is:',
    ...rows(4),
  ].join('\n');
}
