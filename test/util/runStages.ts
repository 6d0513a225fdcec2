// The stages of a run (packages/generate/src/run/) driven in-process with a real RunContext: a
// one-command CLI whose command is the test's function, and a run directory opened for real.
import { PassThrough } from 'node:stream';
import { ApiKey, defineCommand, Logger, type RunContext } from '@hermes-datagen/core';
import { RecordCommits } from '@hermes-datagen/generate/internal/run/recordCommits.js';
import { RunBatches } from '@hermes-datagen/generate/internal/run/runBatches.js';
import { openRunDirectory, type RunDirectory } from '@hermes-datagen/generate/internal/run/runDirectory.js';
import type { Job } from '@hermes-datagen/generate/internal/run/runIntake.js';
import { openRunState, type RunState } from '@hermes-datagen/generate/internal/run/runState.js';
import { RunStops } from '@hermes-datagen/generate/internal/run/runStops.js';
import { RunTally } from '@hermes-datagen/generate/internal/run/runTally.js';
import { runInProcess, type CliResult, type RunOptions } from './cli.js';

/** Runs `body` as the command of a stream CLI (stdin `input`), returning its exit code and output. */
export function inRunContext(body: (ctx: RunContext) => Promise<number>, options: RunOptions = {}, argv: readonly string[] = []): Promise<CliResult> {
  return runInProcess(
    {
      name: 'hermes-test',
      summary: 'test',
      commands: [defineCommand({ command: '$0 [files..]', describe: 'test', stream: true, run: (_args, ctx) => body(ctx) })],
    },
    argv,
    options,
  );
}

export function quietLogger(): { log: Logger; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { log: new Logger('test', stream, { color: false }), text: () => text };
}

/**
 * A run directory `run1` under `root`, new or resumed, for a dataset read from stdin unless `sha256`
 * is given; its lock given back at once, so that the test may open it again.
 */
export async function openTestRun(root: string, resume = false, sha256: string | null = null): Promise<RunDirectory> {
  const run = await openRunDirectory(
    {
      outputRoot: root,
      runName: 'run1',
      resume,
      forceResume: false,
      dataset: { paths: ['-'], sha256 },
      endpoint: { host: 'gw:443', model: 'm', key_fingerprint: 'abcdef01' },
      toolRegistrySha256: 'b'.repeat(64),
      shard: null,
      settings: {},
    },
    quietLogger().log,
  );
  run.lock.release();
  return run;
}

export interface Stages {
  readonly state: RunState;
  readonly tally: RunTally;
  readonly batches: RunBatches;
  readonly stops: RunStops;
  readonly commits: RecordCommits;
  readonly failures: unknown[];
}

/** The stages behind the writing of a run, on `run`'s directory, batch_size 2. */
export async function writeStages(ctx: RunContext, run: RunDirectory, secret = new ApiKey('sk-test-secret-value')): Promise<Stages> {
  const state = await openRunState(run, 'run1', { samples: 1 }, 60_000);
  const tally = new RunTally();
  const batches = new RunBatches(run.dir, 0, 2);
  const stops = new RunStops(ctx.signal, ctx.log, 0, undefined);
  const failures: unknown[] = [];
  const commits = new RecordCommits(ctx, await ctx.openOutput(), state.checkpoint, batches, tally, { discardNoReasoning: true, secret }, (error) =>
    failures.push(error),
  );
  return { state, tally, batches, stops, commits, failures };
}

/** A job as intake makes it, for row `id` (batch 0). */
export function job(id: string, promptIndex = 0, batch = 0): Job {
  return {
    row: { prompt: `prompt ${id}` },
    promptIndex,
    place: { source: '<stdin>', line: promptIndex + 1 },
    id,
    sample: 0,
    rowHash: '0123456789abcdef',
    batch,
    raw: `{"prompt":"prompt ${id}"}`,
  };
}
