// Finishing an invocation, stopped or not: failures.jsonl keeps the prompts still without a record,
// the checkpoint is written (marked complete when the whole selection is done), trajectories.jsonl
// and statistics.json are merged from the batch files (runOutputs.ts), run.json records how the
// invocation ended, and stderr gets the report and a summary line.
import { join } from 'node:path';
import { ExitCode, renderReportText, type RunContext } from '@hermes-datagen/core';
import { listBatchFiles } from './batchFiles.js';
import { MANIFEST_FILE, writeManifest, type Invocation } from './manifest.js';
import type { RecordCommits } from './recordCommits.js';
import type { RunDirectory } from './runDirectory.js';
import type { RunState } from './runState.js';
import type { RunTally } from './runTally.js';
import { unchangedRunOutputs, writeRunOutputs } from './runOutputs.js';

export interface FinishFacts {
  readonly runName: string;
  readonly distribution: string;
  readonly model: string;
  readonly batchSize: number;
  /** When this invocation started (ms since the epoch). */
  readonly started: number;
  readonly exitCode: number;
  /** The whole selection was read (intake was not stopped on the way). */
  readonly selectionRead: boolean;
}

export async function finishRun(
  ctx: RunContext,
  run: RunDirectory,
  { failures, checkpoint, selection, doneBefore }: RunState,
  tally: RunTally,
  commits: RecordCommits,
  facts: FinishFacts,
): Promise<void> {
  const unresolved = await failures.settle((id) => checkpoint.get(id) !== undefined);
  const allDone =
    facts.exitCode === ExitCode.ok && facts.selectionRead && unresolved.length === 0 && tally.interrupted === 0 && ctx.stats.get('rejected_lines') === 0;
  if (selection !== undefined && allDone && doneBefore === undefined) checkpoint.markComplete({ ...selection, records: tally.records });
  await checkpoint.write();
  const files = await listBatchFiles(run.dir);
  const { invocation } = run;
  invocation.ended_at = new Date().toISOString();
  invocation.exit_code = facts.exitCode;
  invocation.records_written = tally.written;
  invocation.tombstones_written = tally.tombstones;
  invocation.prompts_failed = tally.failed;
  const unchanged = tally.written + tally.tombstones === 0 && !run.repaired && files.length === run.files.length;
  const merged =
    (unchanged ? await unchangedRunOutputs(run.dir, files, tally.records) : undefined) ??
    (await writeRunOutputs(
      run.dir,
      files,
      {
        run_name: facts.runName,
        distribution: facts.distribution,
        total_prompts: tally.records,
        batch_size: facts.batchSize,
        model: facts.model,
        duration_seconds: runDuration(run.manifest.invocations, run.invocation, facts.started),
      },
      commits.exact ? commits.fresh : undefined,
    ));
  await writeManifest(join(run.dir, MANIFEST_FILE), run.manifest);
  const parts = [
    `${tally.written} trajectories (${tally.subAgents} of them by sub-agents) and ${tally.tombstones} tombstones written`,
    `${tally.skipped} already done`,
    ...(unresolved.length > 0 ? [`${unresolved.length} failed (listed in ${join(run.dir, 'failures.jsonl')}; --resume runs them again)`] : []),
    ...(tally.interrupted > 0 ? [`${tally.interrupted} stopped unwritten`] : []),
  ];
  ctx.io.stderr.write(renderReportText(merged.summary));
  const byClass = new Map<string, number>();
  for (const failure of unresolved) byClass.set(failure.error_class, (byClass.get(failure.error_class) ?? 0) + 1);
  if (byClass.size > 0) ctx.log.info(`failures by class: ${[...byClass].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
  ctx.log.info(
    `${parts.join(', ')}; the run now has ${merged.trajectories} trajectories and ${merged.tombstones} tombstones in ${files.length} batch files (${run.dir})`,
  );
}

type Timed = Pick<Invocation, 'started_at' | 'ended_at'>;

/** Seconds of every earlier invocation plus this one. */
export function runDuration(invocations: readonly Timed[], current: Timed, started: number, now = Date.now()): number {
  let seconds = (now - started) / 1000;
  for (const invocation of invocations) {
    if (invocation === current || invocation.ended_at === undefined) continue;
    seconds += (Date.parse(invocation.ended_at) - Date.parse(invocation.started_at)) / 1000;
  }
  return seconds;
}
