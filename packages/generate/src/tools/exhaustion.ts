// Running out of file descriptors or processes (EMFILE, ENFILE, EAGAIN) is the machine saying
// "later", not a result: a spawn or an open that meets it waits and tries again (10 ms, doubling to
// 1 s) until it gets through or its call is aborted, so that a tool call never ends as a failure in
// a finished trajectory, nor a prompt as a bug, because others held the descriptors for a moment.
// (hermes-generate also keeps its concurrency within `ulimit -n`, fdBudget.ts; this is the seam for
// what that estimate misses: a burst of opens, the helper's pipes, another process of the user.)
import { setTimeout as sleep } from 'node:timers/promises';
import { errorCode } from './toolError.js';

/** The codes of a resource that frees itself as other work ends. */
export const EXHAUSTION_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'EAGAIN']);

const FIRST_WAIT_MS = 10;
const LONGEST_WAIT_MS = 1000;

export function isExhaustion(error: unknown): boolean {
  return EXHAUSTION_CODES.has(errorCode(error) ?? '');
}

/**
 * `attempt()` until it neither throws an exhaustion error nor returns a result `exhausted` says is
 * one; once `signal` is aborted, what the last attempt gave is the answer. `onExhausted` hears of each.
 */
export async function retryExhausted<T>(
  attempt: () => Promise<T>,
  signal: AbortSignal | undefined,
  exhausted: (result: T) => boolean = () => false,
  onExhausted: () => void = () => undefined,
): Promise<T> {
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      const result = await attempt();
      if (!exhausted(result) || signal?.aborted) return result;
    } catch (error) {
      if (!isExhaustion(error) || signal?.aborted) throw error;
    }
    onExhausted();
    try {
      await sleep(wait, undefined, signal === undefined ? undefined : { signal });
    } catch {
      // Aborted while waiting: one last attempt gives the answer (an abort outcome, or the error).
    }
  }
}
