// The messages between hermes-generate and its process helper (processHelper.ts), declared once.
import type { ProcessOutcome, ProcessSpec } from './runProcess.js';

/** What crosses the channel of a ProcessSpec: no signal, no callbacks (aborts are messages). */
export type HelperSpec = Omit<ProcessSpec, 'signal' | 'onStop' | 'onGroup'>;

export type HelperRequest = { type: 'run'; id: number; spec: HelperSpec } | { type: 'abort'; id: number };

export type HelperReply =
  | { type: 'group'; id: number; pid: number | null }
  | {
      type: 'done';
      id: number;
      outcome: Omit<ProcessOutcome, 'spawnError'> & { spawnError?: { code?: string | undefined; message: string; path?: string | undefined } };
    };

/** SIGKILLs every process group in the set, synchronously, and forgets them. */
export function killAllGroups(groups: Set<number>): void {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // ESRCH: gone already.
    }
  }
  groups.clear();
}
