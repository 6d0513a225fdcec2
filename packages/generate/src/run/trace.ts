// What a gateway sees of each model request of a run, so its console can attribute every call to
// its chain: the OpenAI `user` field and an X-Hermes-Trace header carry the run name, the record id
// and the chain's trace id. The prompt (or sub-agent) a request belongs to is carried by
// AsyncLocalStorage from where it starts to the client wrapper that sends the request, so the agent
// loop in between needs no parameter for it.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestTrace {
  readonly runName: string;
  readonly recordId: string;
  readonly traceId: string;
}

export const TRACE_HEADER = 'X-Hermes-Trace';
/** OpenAI documents `user` as a short end-user id; gateways cut long ones. */
const USER_CHARS = 256;

export const requestTrace = new AsyncLocalStorage<RequestTrace>();

export function traceHeader(trace: RequestTrace): string {
  return `run=${trace.runName}; record=${trace.recordId}; trace=${trace.traceId}`;
}

export function traceUser(trace: RequestTrace): string {
  return `hermes:${trace.runName}:${trace.recordId}:${trace.traceId}`.slice(0, USER_CHARS);
}
