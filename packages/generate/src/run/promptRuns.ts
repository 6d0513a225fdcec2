// Running prompts: each job through the agent (its requests tagged with its run, record and trace id,
// trace.ts), with delegate_task where the run offers it and --prompt-timeout over the whole prompt. A
// finished prompt's records go to their commit; a failed one is classed, counted and appended to
// failures.jsonl (it runs again on --resume); one stopped by a signal or the quota is counted and goes unwritten.
import { randomUUID } from 'node:crypto';
import type { ApiKey, RunContext, Trajectory } from '@hermes-datagen/core';
import type { PromptRunner } from '../generateStream.js';
import { abortFailure, failureRecord, internalFailure, promptFailure, PromptTimeout, type PromptFailure } from '../promptFailure.js';
import { delegateFor, type DelegationSettings } from './delegation.js';
import type { FailureLog } from './failureLog.js';
import type { RecordCommits } from './recordCommits.js';
import type { Job } from './runIntake.js';
import type { RunStops } from './runStops.js';
import type { RunTally } from './runTally.js';
import { traceTags } from './trace.js';

export interface PromptRunOptions {
  readonly runName: string;
  readonly runPrompt: PromptRunner;
  readonly secret: ApiKey;
  /** Wall-clock budget of one prompt; over it the prompt fails (and runs again on resume). */
  readonly promptTimeoutMs?: number | undefined;
  /** delegate_task: offered to prompts whose toolsets include `delegation`. */
  readonly delegation?: Omit<DelegationSettings, 'runPrompt'> | undefined;
}

export interface PromptRunParts {
  readonly ctx: RunContext;
  readonly stops: RunStops;
  readonly tally: RunTally;
  readonly failures: FailureLog;
  readonly commits: RecordCommits;
}

/** The task of the run's bounded pool: one job from start to its commit (or its failure line). */
export function promptRuns(options: PromptRunOptions, { ctx, stops, tally, failures, commits }: PromptRunParts): (job: Job) => Promise<void> {
  // Each agent's requests carry its run, record and trace id (trace.ts).
  const traced: PromptRunner = (job) =>
    options.runPrompt({ ...job, requestTags: traceTags({ runName: options.runName, recordId: job.recordId ?? '', traceId: job.traceId ?? '' }) });
  const delegation = options.delegation === undefined ? undefined : { ...options.delegation, runPrompt: traced };

  const recordFailure = async (job: Job, failure: PromptFailure): Promise<void> => {
    tally.addFailure(failure.kind);
    ctx.stats.add('prompts_failed');
    const record = failureRecord({ id: job.id, promptIndex: job.promptIndex, place: job.place, sample: job.sample, raw: job.raw }, failure, options.secret);
    ctx.log.warn(`prompt ${job.id} failed, no record (it runs again on --resume): ${record.reason}`, job.place, 'prompt-failed');
    await failures.add(record);
    ctx.progress.tick(0);
  };

  return async (job: Job): Promise<void> => {
    const prompt = stops.start();
    const timeoutMs = options.promptTimeoutMs;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => prompt.abort(new PromptTimeout(timeoutMs / 1000)), timeoutMs);
    let trajectory: Trajectory | undefined;
    // Sub-agents' trajectories, written with their root's record (a root that fails leaves none).
    const subAgents: Trajectory[] = [];
    const traceId = randomUUID();
    const base = {
      row: job.row,
      promptIndex: job.promptIndex,
      place: job.place,
      batchNum: job.batch,
      runFields: { run_name: options.runName, sample: job.sample, row_hash: job.rowHash },
    };
    try {
      trajectory = await traced({
        ...base,
        signal: prompt.signal,
        recordId: job.id,
        traceId,
        ...(delegation ? { delegate: delegateFor({ id: job.id, traceId, depth: 0 }, base, delegation, (record) => subAgents.push(record)) } : {}),
      });
    } catch (error) {
      // Stopped by --prompt-timeout or after a bad input line: a failure; by a signal or the quota: unwritten.
      // Anything else is classed as doctor classes it (promptFailure.ts), or is a bug (exit 70), and the run goes on.
      const stopped = prompt.signal.aborted ? abortFailure(prompt.signal.reason) : undefined;
      if (stopped) await recordFailure(job, stopped);
      else if (stops.prompts.signal.aborted) tally.interrupted += 1;
      else await recordFailure(job, promptFailure(error) ?? internalFailure(error));
    } finally {
      clearTimeout(timer);
      stops.finished(prompt);
    }
    if (!trajectory) return commits.skip(job);
    // The slot is free for the next prompt while the record waits for its group's fsync (batchAppender.ts).
    return commits.commit(job, trajectory, subAgents);
  };
}
