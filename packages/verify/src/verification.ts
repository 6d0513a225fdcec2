// One verification: read the dataset and the run directory (when given), pass the stream through
// while every check sees each record once, then the run-directory comparisons, the checklist and the
// exit code. Records are never held: checks keep counts, ids and a few located examples.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  loadToolRegistry,
  readRecords,
  UsageError,
  wantsColor,
  writeJsonAtomic,
  type RunContext,
  type StreamArgs,
  type ToolsRegistryArgs,
} from '@hermes-datagen/core';
import type { CheckResult } from './checkResult.js';
import { checkpointCheck } from './checkpointCheck.js';
import { CompletionCheck } from './completion.js';
import { CoverageCheck } from './coverage.js';
import { readDataset, type Dataset } from './dataset.js';
import { readDroppedFile } from './dropped.js';
import { failuresCheck, manifestCheck } from './manifestCheck.js';
import { MergedFileCheck } from './mergedFile.js';
import { observe, type StreamCheck } from './observed.js';
import { ReasoningCheck } from './reasoningCoverage.js';
import { buildReport, exitCodeOf, printChecklist } from './report.js';
import { CHECKPOINT_FILE, FAILURES_FILE, MANIFEST_FILE, scanRunDirectory, STATISTICS_FILE, TRAJECTORIES_FILE, type RunScan } from './runDirectory.js';
import { readRunFile } from './runFiles.js';
import { SchemaCheck } from './schemaCheck.js';
import { KEY_VARIABLES, SecretCheck } from './secretScan.js';
import { statisticsCheck } from './statisticsCheck.js';
import { StructureCheck } from './structure.js';
import { ToolDistributionCheck } from './toolDistribution.js';
import { ToolFailureCheck } from './toolFailures.js';
import { UnknownToolsCheck } from './unknownTools.js';

export interface VerifyOptions extends ToolsRegistryArgs {
  dataset?: string | undefined;
  /** Files of rows a stage before this one dropped on purpose (dropped.ts). */
  dropped?: string[] | undefined;
  runDir?: string | undefined;
  samples: number;
  maxFailureRate: number;
  requireCompleted: boolean;
  json?: string | undefined;
  quiet: boolean;
  apiKeyEnv?: string | undefined;
}

export async function verify(args: VerifyOptions & StreamArgs, ctx: RunContext): Promise<number> {
  checkOptions(args);
  const { cwd } = ctx.io;
  const registry = loadToolRegistry(args.toolsRegistry, cwd);
  const dataset =
    args.dataset === undefined
      ? undefined
      : await readDataset(args.dataset, cwd, {
          onError: args.onError,
          maxLineBytes: args.maxLineBytes,
          signal: ctx.signal,
          onReject: (reject) => ctx.log.warn(`--dataset: ${reject.reason}; not a row`, { source: reject.source, line: reject.line }, 'dataset-bad-line'),
        });
  const run = args.runDir === undefined ? undefined : await scanRunDirectory(args.runDir, { cwd, maxLineBytes: args.maxLineBytes, signal: ctx.signal });
  const merged = run ? new MergedFileCheck(run.rows) : undefined;
  const mergedPath = run ? join(run.dir, TRAJECTORIES_FILE) : undefined;
  const mergedPresent = mergedPath !== undefined && existsSync(resolve(cwd, mergedPath));
  // With --run-dir and no FILES the run's own records are checked: its merge, or before the run has
  // written one, its batch files (and with neither, no stream: stdin is not what was asked for).
  let readStream = true;
  if (run && args.files.length === 0) {
    args.files = mergedPresent && mergedPath ? [mergedPath] : run.batchFiles.map((name) => join(run.dir, name));
    readStream = args.files.length > 0;
  }
  const streamIsMerged =
    mergedPath !== undefined && args.files.length === 1 && args.files[0] !== '-' && resolve(cwd, args.files[0] ?? '') === resolve(cwd, mergedPath);

  const checkpoint = run ? readRunFile(run.dir, CHECKPOINT_FILE, cwd, 'json') : undefined;
  const coverage = new CoverageCheck(expectation(args.samples, dataset, checkpoint?.state === 'present' ? checkpoint.value : undefined));
  const checks: StreamCheck[] = [
    new SchemaCheck(() => ctx.stats.get('rejected_lines')),
    coverage,
    new CompletionCheck(args.requireCompleted),
    new ToolFailureCheck(args.maxFailureRate),
    new ToolDistributionCheck(registry),
    new ReasoningCheck(),
    new UnknownToolsCheck(registry),
    new SecretCheck(ctx.io.env, [...KEY_VARIABLES, ...(args.apiKeyEnv ? [args.apiKeyEnv] : [])]),
    new StructureCheck(),
  ];
  const out = args.quiet ? undefined : await ctx.openOutput();
  for await (const batch of readStream ? ctx.readRecords() : []) {
    for (const input of batch) {
      const item = observe(input.value, input.raw, input.place);
      for (const check of checks) check.observe(item);
      if (streamIsMerged) merged?.observeLine(input.value, input.bytes, input.place);
      await out?.writeLine(input.bytes);
    }
  }
  if (ctx.signal.aborted) return 0;
  // Read once the stream has ended: a stage before this one in the same pipeline has then exited, and
  // its --rejects file is complete (written to a temp file and renamed when that stage ends).
  const droppedFiles = new Map((args.dropped ?? []).map((path) => [resolve(cwd, path), path]));
  for (const path of droppedFiles.values()) {
    coverage.addDropped(
      await readDroppedFile(path, cwd, {
        onError: args.onError,
        maxLineBytes: args.maxLineBytes,
        signal: ctx.signal,
        onReject: (reject) => ctx.log.warn(`--dropped: ${reject.reason}; not counted`, { source: reject.source, line: reject.line }, 'dropped-bad-line'),
      }),
    );
  }

  if (run && merged && mergedPath) {
    if (mergedPresent && !streamIsMerged) await compareMerged(mergedPath, merged, args, ctx);
    for (const tombstone of run.tombstones) coverage.addRunTombstone(tombstone.value, tombstone.place);
  }
  const results: CheckResult[] = [
    ...checks.map((check) => check.result()),
    ...(run && merged ? runResults(run, merged, mergedPresent, checkpoint, dataset, cwd) : []),
  ];

  const report = buildReport(results, {
    inputs: !readStream ? [] : args.files.length === 0 ? ['<stdin>'] : args.files,
    runDir: args.runDir,
    dataset: dataset ? { path: dataset.path, rows: dataset.rows, sha256: dataset.sha256 } : undefined,
    samples: args.samples,
    maxFailureRate: args.maxFailureRate,
    records: ctx.stats.get('records_in'),
  });
  // --stats-out: how the checklist went, beside the reader's counters.
  ctx.stats.add('checks_passed', report.counts.PASS);
  ctx.stats.add('checks_warned', report.counts.WARN);
  ctx.stats.add('checks_failed', report.counts.FAIL);
  printChecklist(ctx.io.stderr, ctx.name, report, wantsColor(ctx.io.stderr, ctx.io.env, args.color));
  if (args.json === '-') ctx.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (args.json !== undefined) {
    await writeJsonAtomic(resolve(cwd, args.json), report).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot write --json ${args.json ?? ''} (${err.code ?? err.message}): check the path`);
    });
  }
  return exitCodeOf(results);
}

function checkOptions(args: VerifyOptions): void {
  if (!Number.isInteger(args.samples) || args.samples < 1) throw new UsageError(`--samples takes a whole number of at least 1 (got ${String(args.samples)})`);
  if (!(args.maxFailureRate >= 0 && args.maxFailureRate <= 1))
    throw new UsageError(`--max-failure-rate takes a share from 0 to 1, e.g. 0.05 (got ${String(args.maxFailureRate)})`);
  if (args.json === '-' && !args.quiet) throw new UsageError('--json - writes the report to stdout, where the records go: add --quiet, or name a file');
}

/** Rows from --dataset, else from the checkpoint's record of the dataset the run started from. */
function expectation(samples: number, dataset: Dataset | undefined, checkpoint: unknown): ConstructorParameters<typeof CoverageCheck>[0] {
  if (dataset) return { rows: dataset.rows, rowsSource: `--dataset ${dataset.path}`, samples, rowIds: dataset.rowIds };
  const rows = (checkpoint as { dataset?: { valid_rows?: unknown } } | undefined)?.dataset?.valid_rows;
  if (typeof rows === 'number' && Number.isInteger(rows) && rows > 0)
    return { rows, rowsSource: `${CHECKPOINT_FILE} dataset.valid_rows`, samples, rowIds: undefined };
  return { rows: undefined, rowsSource: undefined, samples, rowIds: undefined };
}

/** trajectories.jsonl read on its own when the stream is something else. */
async function compareMerged(path: string, merged: MergedFileCheck, args: StreamArgs, ctx: RunContext): Promise<void> {
  const lines = readRecords([path], undefined, ctx.io.cwd, {
    onError: 'skip',
    maxLineBytes: args.maxLineBytes,
    signal: ctx.signal,
    onReject: (reject) => merged.observeUnreadable(`${reject.source}:${reject.line}: ${reject.reason}`),
  });
  for await (const batch of lines) for (const input of batch) merged.observeLine(input.value, input.bytes, input.place);
}

function runResults(
  run: RunScan,
  merged: MergedFileCheck,
  mergedPresent: boolean,
  checkpoint: ReturnType<typeof readRunFile<'json'>> | undefined,
  dataset: Dataset | undefined,
  cwd: string,
): CheckResult[] {
  const checkpointFile = checkpoint ?? { state: 'absent' as const };
  return [
    run.result,
    checkpointCheck(checkpointFile, run.rows),
    merged.result(mergedPresent),
    statisticsCheck(readRunFile(run.dir, STATISTICS_FILE, cwd, 'json'), run.totals),
    manifestCheck(readRunFile(run.dir, MANIFEST_FILE, cwd, 'json'), checkpointFile, dataset),
    failuresCheck(readRunFile(run.dir, FAILURES_FILE, cwd, 'jsonl'), run.rows),
  ];
}
