// What a gateway sees of each model request of a run, so its console can attribute every call to
// its chain: the OpenAI `user` field and an X-Hermes-Trace header carry the run name, the record id
// and the chain's trace id. Each prompt and sub-agent gets a client of its own that adds them
// (PromptJob.client), so nothing per request has to be looked up.
import type { ChatClient } from '../agentLoop.js';

export interface RequestTrace {
  readonly runName: string;
  readonly recordId: string;
  readonly traceId: string;
}

export const TRACE_HEADER = 'X-Hermes-Trace';
/** OpenAI documents `user` as a short end-user id; gateways cut long ones. */
const USER_CHARS = 256;

type CreateParams = Parameters<ChatClient['chat']['completions']['create']>;

export function traceHeader(trace: RequestTrace): string {
  return `run=${trace.runName}; record=${trace.recordId}; trace=${trace.traceId}`;
}

export function traceUser(trace: RequestTrace): string {
  return `hermes:${trace.runName}:${trace.recordId}:${trace.traceId}`.slice(0, USER_CHARS);
}

/** `inner` with the trace fields on every request. */
export function tracedClient(inner: ChatClient, trace: RequestTrace): ChatClient {
  const user = traceUser(trace);
  const header = traceHeader(trace);
  const create = (body: CreateParams[0], options: CreateParams[1] = {}) =>
    inner.chat.completions.create({ ...body, user }, { ...options, headers: { ...options.headers, [TRACE_HEADER]: header } });
  return { chat: { completions: { create } } };
}
