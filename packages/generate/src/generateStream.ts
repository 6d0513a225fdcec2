// The stream mode of hermes-generate: prompt rows in (validated with the prompt schema, bad lines
// under the shared --on-error policy), one trajectory out per prompt as soon as it is done (so out
// of input order; each record has its id and prompt_index). A prompt whose model calls finally fail
// is reported on stderr with its place and counted, and has no record: every one is listed in
// --rejects as a failure record (schemas/failure.schema.json), while stderr stops after 20 warnings
// of a kind; whatever goes wrong in one
// prompt (a bug included) never ends the others, and finished records are kept whatever the exit
// code (with -o, the file is moved into place even then). When the run is stopped
// (SIGINT/SIGTERM), no new prompt starts and the running ones are aborted and not written. When the
// input fails (a bad line under --on-error fail), no new prompt starts and the running ones finish
// and are written (or listed as failures) before the exit: nothing read before the bad line is lost.
// A failure every prompt would meet alike (a billing refusal: failureKinds.ts stopsRun) stops the
// run as a signal does, and exits 1.
import {
  ExitCode,
  formatPlace,
  promptId,
  redact,
  type ApiKey,
  type InputRecord,
  type Place,
  type PromptRow,
  type RunContext,
  type Trajectory,
} from '@hermes-datagen/core';
import { runBounded } from './boundedPool.js';
import type { RequestTags } from './agentLoop.js';
import type { JournalSession } from './agentCalls.js';
import type { WaitTracker } from '@hermes-datagen/core/endpoint';
import type { RunRecordFields } from './trajectory.js';
import type { Delegate } from './tools/types.js';
import { failureExitCode, runStopMessage } from './failureKinds.js';
import { abortFailure, failureRecord, InputStopped, internalFailure, promptFailure } from './promptFailure.js';

export interface PromptJob {
  readonly row: PromptRow;
  /** Position among the valid prompt rows, from 0. */
  readonly promptIndex: number;
  readonly place: Place;
  readonly signal: AbortSignal;
  /** Run mode (--run-name): the record's id (row and sample) and its batch file's number. */
  readonly recordId?: string;
  readonly batchNum?: number;
  /** Run mode: the chain's trace id (also sent with each request), and for a sub-agent its toolsets. */
  readonly traceId?: string;
  readonly toolsets?: readonly string[];
  /** Run mode, below the depth budget: delegate_task is offered and runs sub-agents through this. */
  readonly delegate?: Delegate;
  /** Run mode: the trace fields on every request of this prompt (run/trace.ts). */
  readonly requestTags?: RequestTags;
  /** Run mode: what the record's metadata says of its run, sample, row and parent. */
  readonly runFields?: RunRecordFields;
  /** Run mode: this agent's part of the call journal (replies to replay on --resume, and where new ones go). */
  readonly journal?: JournalSession;
  /** Run mode with --prompt-timeout: told of the model calls' waits, which the prompt's clock does not count. */
  readonly waits?: WaitTracker;
}

export type PromptRunner = (job: PromptJob) => Promise<Trajectory>;

export interface StreamOptions {
  readonly concurrency: number;
  /** How long running prompts may take to finish after the input stopped at a bad line. */
  readonly graceMs: number;
  readonly runPrompt: PromptRunner;
  /** Removed from every failure message, whatever an endpoint echoes back. */
  readonly secret?: ApiKey;
}

/**
 * Returns the exit code: 0 when every prompt has a record; else the failures' code from the one
 * table (failureKinds.ts): 4 when each may pass on a later run (rate limits, server errors,
 * timeouts, refused or reset connections), 1 when one needs a fix first (a rejected key, an unknown
 * model, a wrong path, a web page); 70 when one was a bug.
 */
export async function generateStream(ctx: RunContext, options: StreamOptions): Promise<number> {
  const out = await ctx.openOutput(undefined, { keepOnError: true });
  const failedKinds = new Map<string, number>();
  const stop = new AbortController();
  // Each prompt has a signal of its own, all aborted by one listener: hundreds of prompts listening
  // on one shared signal would trip Node's MaxListenersExceededWarning.
  const running = new Set<AbortController>();
  const relay = (): void => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', relay, { once: true });
  stop.signal.addEventListener(
    'abort',
    () => {
      for (const prompt of running) prompt.abort(stop.signal.reason);
    },
    { once: true },
  );
  // A signal that came while the run was being set up: its listener missed it.
  if (ctx.signal.aborted) relay();

  const runOne = async ({ row, promptIndex, place, raw }: PromptLine): Promise<void> => {
    let trajectory: Trajectory;
    const prompt = new AbortController();
    running.add(prompt);
    try {
      trajectory = await options.runPrompt({ row, promptIndex, place, signal: prompt.signal });
    } catch (error) {
      const stopped = prompt.signal.aborted ? abortFailure(prompt.signal.reason) : undefined;
      if (stopped === undefined && stop.signal.aborted) {
        ctx.stats.add('prompts_interrupted');
        return;
      }
      const failure = stopped ?? promptFailure(error) ?? internalFailure(error);
      failedKinds.set(failure.kind, (failedKinds.get(failure.kind) ?? 0) + 1);
      ctx.stats.add('prompts_failed');
      ctx.log.warn(`prompt ${promptIndex} failed, no trajectory: ${redact(failure.reason, options.secret)}`, place, 'prompt-failed');
      // A billing refusal: every other prompt would meet it too, so the run stops here.
      const runStop = stop.signal.aborted ? undefined : runStopMessage(failure.kind, running.size - 1);
      if (runStop !== undefined) {
        ctx.log.error(runStop);
        stop.abort(failure.kind);
      }
      await (await ctx.rejects())?.write(failureRecord({ id: promptId(row, promptIndex), promptIndex, place, raw }, failure, options.secret));
      return;
    } finally {
      running.delete(prompt);
    }
    // Last line of defence: a key the agent read from a file (a copied .env) never reaches the output.
    await out.writeLine(redact(JSON.stringify(trajectory), options.secret));
    // Each record goes out when it is done, not when the writer's buffer fills.
    await out.flush();
    ctx.stats.add('trajectories_out');
    ctx.stats.add('api_calls', trajectory.api_calls);
    if (!trajectory.completed) ctx.stats.add('trajectories_incomplete');
    if (trajectory.partial) ctx.stats.add('trajectories_partial');
  };

  let grace: NodeJS.Timeout | undefined;
  const inputFailed = (promptsRead: number): void => {
    ctx.log.info(inputStoppedMessage(promptsRead, running.size, options.graceMs));
    grace = setTimeout(() => stop.abort(new InputStopped(options.graceMs / 1000)), options.graceMs);
  };
  try {
    await runBounded(indexedPrompts(ctx, inputFailed), options.concurrency, runOne, stop.signal);
  } finally {
    clearTimeout(grace);
    ctx.signal.removeEventListener('abort', relay);
  }

  const failed = [...failedKinds.values()].reduce((sum, n) => sum + n, 0);
  ctx.log.info(streamSummary(ctx, failed));
  if (failed === 0) return ExitCode.ok;
  const total = ctx.stats.get('trajectories_out') + failed;
  const kinds = [...failedKinds].map(([kind, n]) => `${n} ${kind}`).join(', ');
  const listed =
    (await ctx.rejects()) === undefined ? 'see the messages above, or use --rejects FILE to list them all' : 'each is listed in the --rejects file';
  ctx.log.warn(`${failed} of ${total} prompts failed and have no trajectory (${kinds}; ${listed})`, undefined, 'summary');
  if (failedKinds.has('internal')) return ExitCode.internal;
  return failureExitCode(failedKinds.keys());
}

/** The closing line of a stream-mode run, as run mode has its own: what was written and what was not. */
function streamSummary(ctx: RunContext, failed: number): string {
  const written = ctx.stats.get('trajectories_out');
  const interrupted = ctx.stats.get('prompts_interrupted');
  const of = `${ctx.stats.get('trajectories_incomplete')} incomplete, ${ctx.stats.get('trajectories_partial')} partial`;
  const stopped = interrupted > 0 ? `, ${interrupted} stopped unfinished` : '';
  return `${written} trajector${written === 1 ? 'y' : 'ies'} written (${of}); ${failed} prompt${failed === 1 ? '' : 's'} failed${stopped}`;
}

/** What stderr says when the input stops at a bad line with prompts running (both modes). */
export function inputStoppedMessage(promptsRead: number, running: number, graceMs: number): string {
  const they = running === 1 ? 'the 1 running prompt gets' : `the ${running} running prompts get`;
  return `the input stopped after ${promptsRead} prompts: no new prompt starts; ${they} ${graceMs / 1000}s (--grace) to finish and be written, then any still running is listed as a failure`;
}

/** A valid prompt row, its index, and its line as read (for a failure record). */
export type PromptLine = Omit<PromptJob, 'signal'> & {
  readonly raw: string;
  /** The row's prompt id (promptId), derived once. */
  readonly id: string;
};

/**
 * The valid prompt rows with their index. A row whose id an earlier row already has is a bad line
 * (its reason names both lines): ids key every record downstream (filters, checkpoints, joins), so
 * two prompts under one id would be taken for one. When reading fails, `onFailure` is told how many
 * prompts were read, then the error is thrown (the bounded pool waits for the running prompts).
 */
export async function* indexedPrompts(ctx: RunContext, onFailure: (promptsRead: number) => void): AsyncGenerator<PromptLine> {
  let promptIndex = 0;
  const seen = new Map<string, Place>();
  try {
    for await (const batch of ctx.readRecords({ schema: 'prompt' })) {
      for (const record of batch as InputRecord<PromptRow>[]) {
        const id = promptId(record.value, promptIndex);
        const first = seen.get(id);
        if (first !== undefined) {
          await ctx.rejectRecord(record, `duplicate id "${id}": ${formatPlace(first)} has the same id; give each prompt an id of its own`);
          continue;
        }
        seen.set(id, record.place);
        yield { row: record.value, promptIndex, place: record.place, raw: record.raw, id };
        promptIndex += 1;
      }
    }
  } catch (error) {
    onFailure(promptIndex);
    throw error;
  }
}
