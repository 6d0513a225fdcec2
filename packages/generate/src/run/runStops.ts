// How a run stops. Intake (no new prompt) stops at once on SIGINT/SIGTERM; the running prompts get
// --grace seconds to finish, then they are aborted and go unwritten. When the rate limiter gives up
// (core rateLimiter.ts: no successful call for --quota-wait) intake stops at once, and the running
// prompts fail as rate-limited at their next model call. A failure every prompt would meet alike (a
// billing refusal: failureKinds.ts stopsRun) ends intake and stops the running prompts unwritten at
// once, exit 1: their calls so far are in the call journal, and --resume continues once the account
// is fixed. A bad input line ends intake; the running prompts get the same
// grace, then fail (they are listed in failures.jsonl, so nothing read goes unaccounted). Each prompt has a signal of its own, all aborted by one
// listener: hundreds of prompts listening on one shared signal would trip Node's MaxListenersExceededWarning.
import { ExitCode, type Logger } from '@hermes-datagen/core';
import { inputStoppedMessage } from '../generateStream.js';
import { InputStopped, type PromptFailure } from '../promptFailure.js';
import { runStopMessage } from '../failureKinds.js';

export class RunStops {
  /** Aborted when no new prompt may start. */
  public readonly intake = new AbortController();
  /** Aborted when the running prompts are stopped unwritten. */
  public readonly prompts = new AbortController();
  private readonly running = new Set<AbortController>();
  private grace: NodeJS.Timeout | undefined;
  private inputGrace: NodeJS.Timeout | undefined;
  /** The failure that stopped the run because every prompt would meet it (a billing refusal). */
  private runWide: PromptFailure | undefined;
  private readonly onSignal = (): void => {
    this.intake.abort(this.signal.reason);
    this.log.info(
      `stopping: no new prompt starts; ${this.running.size} running get ${this.graceMs / 1000}s to finish (a second signal exits at once; --resume continues)`,
    );
    this.grace = setTimeout(() => this.prompts.abort(this.signal.reason), this.graceMs);
  };
  // No new prompt starts; each running one fails as rate-limited at its next model call (the limiter
  // refuses them all), or is written if it needs none: every failed one runs again on --resume.
  private readonly onQuota = (): void => {
    this.log.error(String(this.quotaExhausted?.reason));
    this.intake.abort(this.quotaExhausted?.reason);
  };

  public constructor(
    /** The process's SIGINT/SIGTERM (its reason is the signal's name). */
    private readonly signal: AbortSignal,
    private readonly log: Logger,
    private readonly graceMs: number,
    private readonly quotaExhausted: AbortSignal | undefined,
  ) {
    this.prompts.signal.addEventListener(
      'abort',
      () => {
        for (const prompt of this.running) prompt.abort(this.prompts.signal.reason);
      },
      { once: true },
    );
    signal.addEventListener('abort', this.onSignal, { once: true });
    quotaExhausted?.addEventListener('abort', this.onQuota, { once: true });
    // A signal that came while the run was being set up: its listener missed it.
    if (signal.aborted) this.onSignal();
  }

  /**
   * The input stopped at a bad line: intake has ended; the running prompts get --grace seconds to
   * finish and be written, then the ones still running fail (InputStopped), listed in failures.jsonl.
   */
  public inputFailed(promptsRead: number): void {
    this.log.info(inputStoppedMessage(promptsRead, this.running.size, this.graceMs));
    this.inputGrace = setTimeout(() => this.prompts.abort(new InputStopped(this.graceMs / 1000)), this.graceMs);
  }

  /**
   * A prompt failed in a way every prompt would (failureKinds.ts stopsRun): no new prompt starts, and
   * the others running stop unwritten now rather than each buying the same refusal. Told again, it
   * does nothing: the first failure stands for all.
   */
  public failed(failure: PromptFailure): void {
    const message = runStopMessage(failure.kind, this.running.size - 1);
    if (message === undefined || this.runWide !== undefined) return;
    this.runWide = failure;
    this.log.error(`${message}; once it is fixed, --resume continues (the failed prompt runs again too)`);
    this.intake.abort(failure.kind);
    this.prompts.abort(failure.kind);
  }

  /** A new prompt's own controller, aborted with the others when the prompts are stopped. */
  public start(): AbortController {
    const prompt = new AbortController();
    this.running.add(prompt);
    return prompt;
  }

  public finished(prompt: AbortController): void {
    this.running.delete(prompt);
  }

  public get runningCount(): number {
    return this.running.size;
  }

  /** The exit code of a stop (1 for a run-wide failure, 4 for the quota, 143 for SIGTERM, 130 for SIGINT); undefined when the run was not stopped. */
  public code(): number | undefined {
    if (this.runWide !== undefined) return ExitCode.checksFailed;
    if (this.quotaExhausted?.aborted) return ExitCode.retryable;
    if (this.signal.aborted) return this.signal.reason === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
    return undefined;
  }

  /** No more listening: the run is over (prompts still finishing are not stopped by a late signal). */
  public dispose(): void {
    clearTimeout(this.grace);
    clearTimeout(this.inputGrace);
    this.signal.removeEventListener('abort', this.onSignal);
    this.quotaExhausted?.removeEventListener('abort', this.onQuota);
  }
}
