// Running prompts: each job through the agent (its requests tagged with its run, record and trace id,
// trace.ts), with delegate_task where the run offers it and --prompt-timeout over the whole prompt. A
// finished prompt's records go to their commit, after the failure lines of its failed sub-agents
// (each run again on its own by a --resume, at its place in the chain); a failed one is classed, counted and appended to
// failures.jsonl (it runs again on --resume); one stopped by a signal or the quota is counted and goes unwritten.
import { randomUUID } from 'node:crypto';
import type { ApiKey, RunContext, Trajectory } from '@hermes-datagen/core';
import type { PromptRunner } from '../generateStream.js';
import { PromptClock } from './promptClock.js';
import { abortFailure, failureRecord, internalFailure, promptFailure, PromptTimeout, type PromptFailure } from '../promptFailure.js';
import { delegateFor, runSubAgent, type DelegationSettings, type FailedSubAgent, type SubAgentSink } from './delegation.js';
import type { FailureLog } from './failureLog.js';
import type { RecordCommits } from './recordCommits.js';
import type { Job } from './runIntake.js';
import type { RunStops } from './runStops.js';
import type { RunTally } from './runTally.js';
import { addSubAgentCosts } from '../trajectory.js';
import type { CallJournal } from './callJournal.js';
import { traceTags } from './trace.js';

export interface PromptRunOptions {
  readonly runName: string;
  readonly runPrompt: PromptRunner;
  readonly secret: ApiKey;
  /** Wall-clock budget of one prompt; over it the prompt fails (and runs again on resume). */
  readonly promptTimeoutMs?: number | undefined;
  /** delegate_task: offered to prompts whose toolsets include `delegation`. */
  readonly delegation?: Omit<DelegationSettings, 'runPrompt'> | undefined;
  /** The run's call journal: each agent (sub-agents too) replays and records its replies there. */
  readonly journal?: CallJournal | undefined;
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
  const { journal } = options;
  const traced: PromptRunner = (job) =>
    options.runPrompt({
      ...job,
      requestTags: traceTags({ runName: options.runName, recordId: job.recordId ?? '', traceId: job.traceId ?? '' }),
      ...(journal !== undefined && job.recordId !== undefined ? { journal: journal.session(job.recordId) } : {}),
    });
  const delegation = options.delegation === undefined ? undefined : { ...options.delegation, runPrompt: traced };

  const recordFailure = async (job: Job, failure: PromptFailure): Promise<void> => {
    tally.addFailure(failure.kind);
    ctx.stats.add('prompts_failed');
    const sub = job.subAgent === undefined ? {} : { parentId: job.subAgent.parentId, depth: job.subAgent.depth };
    const record = failureRecord(
      { id: job.id, promptIndex: job.promptIndex, place: job.place, sample: job.sample, raw: job.raw, ...sub },
      failure,
      options.secret,
    );
    ctx.log.warn(`prompt ${job.id} failed, no record (it runs again on --resume): ${record.reason}`, job.place, 'prompt-failed');
    // A billing refusal: every other prompt would meet it too, so the run stops here (runStops.ts).
    stops.failed(failure);
    await failures.add(record);
    ctx.progress.tick(0);
  };

  /** The failure lines of a written root's failed sub-agents (the parent's record says they failed; --resume runs them again). */
  const recordSubAgentFailures = async (job: Job, failed: readonly FailedSubAgent[]): Promise<void> => {
    for (const { link, parentId, prompt, toolsets, error } of failed) {
      const failure = promptFailure(error) ?? internalFailure(error);
      tally.addFailure(failure.kind, true);
      ctx.stats.add('sub_agents_failed');
      const task = JSON.stringify({ prompt, toolsets });
      const record = failureRecord(
        { id: link.id, promptIndex: job.promptIndex, place: job.place, sample: job.sample, raw: task, parentId, depth: link.depth },
        failure,
        options.secret,
      );
      ctx.log.warn(`sub-agent ${link.id} of ${parentId} failed (${failure.kind}; --resume runs it again): ${record.reason}`, job.place, 'sub-agent-failed');
      await failures.add(record);
    }
  };

  /** The agent of a job: the row's prompt, or a failed sub-agent's task run again at its place in the chain. */
  const runAgent = (job: Job, signal: AbortSignal, traceId: string, sink: SubAgentSink, clock: PromptClock | undefined): Promise<Trajectory> => {
    const base = {
      row: job.row,
      promptIndex: job.promptIndex,
      place: job.place,
      batchNum: job.batch,
      runFields: { run_name: options.runName, sample: job.sample, row_hash: job.rowHash },
      ...(clock === undefined ? {} : { waits: clock }),
    };
    const link = { id: job.id, traceId, depth: job.subAgent?.depth ?? 0 };
    if (job.subAgent !== undefined) {
      const settings = delegation ?? { runPrompt: traced, maxDepth: 0, checkToolsets: () => undefined };
      return runSubAgent(link, job.subAgent.parentId, job.row.prompt, job.subAgent.toolsets, base, settings, sink, signal);
    }
    return traced({ ...base, signal, recordId: job.id, traceId, ...(delegation ? { delegate: delegateFor(link, base, delegation, sink) } : {}) });
  };

  return async (job: Job): Promise<void> => {
    const prompt = stops.start();
    const timeoutMs = options.promptTimeoutMs;
    // The prompt's own work, not its waits for the rate limiter (promptClock.ts).
    const clock = timeoutMs === undefined ? undefined : new PromptClock(timeoutMs, () => prompt.abort(new PromptTimeout(timeoutMs / 1000)));
    let trajectory: Trajectory | undefined;
    // Sub-agents' trajectories and failures, written with their root's record (a root that fails leaves none).
    const subAgents: Trajectory[] = [];
    const failedSubAgents: FailedSubAgent[] = [];
    const sink: SubAgentSink = { keep: (record) => subAgents.push(record), failed: (failure) => failedSubAgents.push(failure) };
    try {
      trajectory = await runAgent(job, prompt.signal, randomUUID(), sink, clock);
    } catch (error) {
      // Stopped by --prompt-timeout or after a bad input line: a failure; by a signal or the quota: unwritten.
      // Anything else is classed as doctor classes it (promptFailure.ts), or is a bug (exit 70), and the run goes on.
      const stopped = prompt.signal.aborted ? abortFailure(prompt.signal.reason) : undefined;
      if (stopped) await recordFailure(job, stopped);
      else if (stops.prompts.signal.aborted) tally.interrupted += 1;
      else await recordFailure(job, promptFailure(error) ?? internalFailure(error));
    } finally {
      clock?.stop();
      stops.finished(prompt);
    }
    if (!trajectory) return commits.skip(job);
    if (subAgents.length > 0) addSubAgentCosts(trajectory, subAgents);
    // Before the root's record: a kill between the two leaves failure lines without it, which are
    // dropped (the root runs again whole), never a written root whose failed sub-agents are forgotten.
    if (failedSubAgents.length > 0) await recordSubAgentFailures(job, failedSubAgents);
    // The slot is free for the next prompt while the record waits for its group's fsync (batchAppender.ts).
    return commits.commit(job, trajectory, subAgents);
  };
}
