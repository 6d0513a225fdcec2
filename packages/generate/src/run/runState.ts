// What an invocation starts from once its run directory is open (runDirectory.ts): the failures of
// earlier invocations, the checkpoint restored from what is done, and which (row, sample) pairs this
// invocation is about, so that a selection done in full before is not read again.
import { join } from 'node:path';
import type { CompleteRun } from '@hermes-datagen/core';
import { CHECKPOINT_FILE, CheckpointState } from './checkpoint.js';
import { FailureLog } from './failureLog.js';
import type { RunDirectory } from './runDirectory.js';
import type { Shard } from './shard.js';

export interface Selection {
  readonly samples: number;
  readonly maxSamples?: number | undefined;
  readonly shard?: Shard | undefined;
}

export interface RunState {
  readonly failures: FailureLog;
  readonly checkpoint: CheckpointState;
  /** The dataset as the checkpoint describes it; valid_rows is set as the input is read. */
  readonly datasetFacts: { path: string; valid_rows: number; sha256?: string };
  /** This invocation's selection, when the dataset was read from files (hashed); undefined for stdin. */
  readonly selection: Omit<CompleteRun, 'records'> | undefined;
  /**
   * An earlier invocation did every pair of this very dataset and selection, and no batch file has
   * changed since: there is nothing to run, and a dataset of millions of rows is not parsed again.
   */
  readonly doneBefore: CompleteRun | undefined;
}

export async function openRunState(run: RunDirectory, runName: string, selected: Selection, checkpointIntervalMs: number): Promise<RunState> {
  const failures = new FailureLog(run.dir);
  await failures.load();
  const { dataset, endpoint } = run.manifest;
  const datasetFacts = { path: dataset.paths.join(' '), valid_rows: 0, ...(dataset.sha256 !== null ? { sha256: dataset.sha256 } : {}) };
  const checkpoint = new CheckpointState(join(run.dir, CHECKPOINT_FILE), { run_name: runName, endpoint, dataset: datasetFacts }, checkpointIntervalMs);
  checkpoint.restore(run.done, run.sizes, run.checkpoint);
  const selection: Omit<CompleteRun, 'records'> | undefined =
    dataset.sha256 === null
      ? undefined
      : {
          sha256: dataset.sha256,
          samples: selected.samples,
          max_samples: selected.maxSamples ?? null,
          shard: selected.shard === undefined ? null : `${selected.shard.index}/${selected.shard.count}`,
        };
  const complete = checkpoint.complete;
  const doneBefore = selection !== undefined && complete !== undefined && sameSelection(complete, selection) ? complete : undefined;
  return { failures, checkpoint, datasetFacts, selection, doneBefore };
}

function sameSelection(a: CompleteRun, b: Omit<CompleteRun, 'records'>): boolean {
  return a.sha256 === b.sha256 && a.samples === b.samples && a.max_samples === b.max_samples && a.shard === b.shard;
}
