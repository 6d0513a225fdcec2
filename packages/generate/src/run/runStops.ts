// How a run stops. Intake (no new prompt) stops at once on SIGINT/SIGTERM; the running prompts get
// --grace seconds to finish, then they are aborted and go unwritten. When the rate limiter gives up
// (core rateLimiter.ts: no successful call for --quota-wait) intake stops at once, and the running
// prompts fail as rate-limited at their next model call. A bad input line ends intake; the running prompts get the same
// grace, then fail (they are listed in failures.jsonl, so nothing read goes unaccounted). Each prompt has a signal of its own, all aborted by one
// listener: hundreds of prompts listening on one shared signal would trip Node's MaxListenersExceededWarning.
import { ExitCode, type Logger } from '@hermes-datagen/core';
import { inputStoppedMessage } from '../generateStream.js';
import { InputStopped } from '../promptFailure.js';

export class RunStops {
  /** Aborted when no new prompt may start. */
  public readonly intake = new AbortController();
  /** Aborted when the running prompts are stopped unwritten. */
  public readonly prompts = new AbortController();
  private readonly running = new Set<AbortController>();
  private grace: NodeJS.Timeout | undefined;
  private inputGrace: NodeJS.Timeout | undefined;
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
  }

  /**
   * The input stopped at a bad line: intake has ended; the running prompts get --grace seconds to
   * finish and be written, then the ones still running fail (InputStopped), listed in failures.jsonl.
   */
  public inputFailed(promptsRead: number): void {
    this.log.info(inputStoppedMessage(promptsRead, this.running.size, this.graceMs));
    this.inputGrace = setTimeout(() => this.prompts.abort(new InputStopped(this.graceMs / 1000)), this.graceMs);
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

  /** The exit code of a stop (4 for the quota, 143 for SIGTERM, 130 for SIGINT); undefined when the run was not stopped. */
  public code(): number | undefined {
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
