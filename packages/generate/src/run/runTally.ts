// What one invocation of a run has done so far, counted as it happens: the records and tombstones
// written, what was skipped as done before, the prompts stopped unwritten and the failures by kind.
// The progress line and the exit code are read from it.
import { ExitCode } from '@hermes-datagen/core';
import { failureExitCode } from '../failureKinds.js';

export class RunTally {
  /** Records written (sub-agents' included). */
  public written = 0;
  public subAgents = 0;
  public tombstones = 0;
  /** (row, sample) pairs of the selection done by an earlier invocation. */
  public skipped = 0;
  /** Prompts stopped unwritten by a signal or an exhausted quota; they run again on --resume. */
  public interrupted = 0;
  /** (row, sample) pairs of the selection read so far. */
  public records = 0;
  private readonly failedKinds = new Map<string, number>();
  private failedTotal = 0;
  /** Failed sub-agents of prompts that went on: failures, but no prompt of the selection. */
  private failedSubAgents = 0;

  public addFailure(kind: string, subAgent = false): void {
    this.failedKinds.set(kind, (this.failedKinds.get(kind) ?? 0) + 1);
    this.failedTotal += 1;
    if (subAgent) this.failedSubAgents += 1;
  }

  public get failed(): number {
    return this.failedTotal;
  }

  /** Prompts of this invocation that ended: written, discarded or failed. */
  public get done(): number {
    return this.written - this.subAgents + this.tombstones + this.failedTotal - this.failedSubAgents;
  }

  /** The progress line's detail: prompts done of those to run, running, the limiter's requests in flight, its limit and 429s a minute, and an ETA. */
  public progress(running: number, limits: { inFlight: number; limit: number; refusalsPerMinute: number } | undefined, seconds: number): string {
    const { done } = this;
    const left = this.records - this.skipped - done;
    const eta = done > 0 && left > 0 ? `, ETA ${Math.round((left * seconds) / done)}s` : '';
    const rate = limits === undefined ? '' : `, ${limits.inFlight} in flight of ${limits.limit} allowed, ${limits.refusalsPerMinute} 429s/min`;
    return `${done}/${this.records - this.skipped} prompts done, ${running} running${rate}${eta}`;
  }

  /** The exit code of a run that was not stopped: 70 for a bug, else the failures' code (failureKinds.ts), 0 without any. */
  public failureCode(): number {
    if (this.failedKinds.has('internal')) return ExitCode.internal;
    return failureExitCode(this.failedKinds.keys());
  }
}
