// What a gateway sees of each model request of a run, so its console can attribute every call to
// its chain: the OpenAI `user` field and an X-Hermes-Trace header carry the run name, the record id
// and the chain's trace id. Each prompt and sub-agent is given its tags once (PromptJob.requestTags),
// and the agent loop puts them on every request it makes, so nothing per request is looked up or copied.
import type { RequestTags } from '../agentLoop.js';

export interface RequestTrace {
  readonly runName: string;
  readonly recordId: string;
  readonly traceId: string;
}

export const TRACE_HEADER = 'X-Hermes-Trace';
/** OpenAI documents `user` as a short end-user id; gateways cut long ones. */
const USER_CHARS = 256;

function traceHeader(trace: RequestTrace): string {
  return `run=${trace.runName}; record=${trace.recordId}; trace=${trace.traceId}`;
}

function traceUser(trace: RequestTrace): string {
  return `hermes:${trace.runName}:${trace.recordId}:${trace.traceId}`.slice(0, USER_CHARS);
}

/** The tags of every request of one agent. */
export function traceTags(trace: RequestTrace): RequestTags {
  return { user: traceUser(trace), headers: { [TRACE_HEADER]: traceHeader(trace) } };
}
