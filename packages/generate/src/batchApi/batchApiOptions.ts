// The flags of --batch-api, declared once for --help, and their check: the batch API needs the run
// directory (its ledger of batches lives there), and the flags that pace synchronous calls have no
// calls to pace.
import { UsageError, type Argv } from '@hermes-datagen/core';

const BATCH = "Batch API (--batch-api, with --run-name; the provider's /v1/batches at its batch price, docs/batch-api.md):";

export const DEFAULT_BATCH_POLL_MS = 15_000;
export const DEFAULT_BATCH_RETRIES = 3;
/**
 * Prompts at once under --batch-api without -c: every prompt may wait for its batch at the same time.
 * What bounds memory is their histories (a few KB to a few hundred KB each), not connections.
 */
export const DEFAULT_BATCH_CONCURRENCY = 10_000;

export interface BatchApiArgs {
  batchApi: boolean;
  batchPollMs: number;
  batchRetries: number;
  cancelOnExit: boolean;
}

export interface BatchApiSettings {
  readonly pollMs: number;
  readonly retries: number;
  readonly cancelOnExit: boolean;
}

export function batchApiOptions<T>(y: Argv<T>) {
  return y
    .option('batch-api', {
      type: 'boolean',
      default: false,
      describe:
        "send every model call through the provider's batch API (/v1/files, /v1/batches): the agents run in rounds, each round one or more batches; cheaper (the model's batch_discount), slower (each turn waits for its batch); run mode only, resumable per turn",
      group: BATCH,
    })
    .option('batch-poll-ms', {
      type: 'number',
      default: DEFAULT_BATCH_POLL_MS,
      describe: "milliseconds before a batch is first polled; later polls come every tenth of the batch's age, at least this and at most ten times this apart",
      group: BATCH,
    })
    .option('batch-retries', {
      type: 'number',
      default: DEFAULT_BATCH_RETRIES,
      describe:
        'times a request is sent again (in the next round, under a new custom_id) after its batch failed it, expired or was cancelled; then its prompt fails as batch-failed (exit 4, --resume runs it again)',
      group: BATCH,
    })
    .option('cancel-on-exit', {
      type: 'boolean',
      default: false,
      describe:
        "cancel the run's unfinished batches at the provider when the run stops (SIGINT/SIGTERM); by default they are left running, and --resume collects them",
      group: BATCH,
    });
}

/** The settings of --batch-api; undefined without it (and then its other flags are a usage error, never ignored). */
export function batchApiSettings(
  args: BatchApiArgs & { runName?: string | undefined; rpm?: number | undefined; tpm?: number | undefined },
): BatchApiSettings | undefined {
  if (!args.batchApi) {
    const given = (
      [
        ['--batch-poll-ms', args.batchPollMs !== DEFAULT_BATCH_POLL_MS],
        ['--batch-retries', args.batchRetries !== DEFAULT_BATCH_RETRIES],
        ['--cancel-on-exit', args.cancelOnExit],
      ] as const
    )
      .filter(([, set]) => set)
      .map(([flag]) => flag);
    if (given.length > 0) throw new UsageError(`${given.join(', ')} ${given.length === 1 ? 'works' : 'work'} with --batch-api only`);
    return undefined;
  }
  if (args.runName === undefined) {
    throw new UsageError('--batch-api works in run mode only (the run directory keeps its batches, so a stopped run can collect them): add --run-name NAME');
  }
  const paced = [args.rpm !== undefined ? '--rpm' : undefined, args.tpm !== undefined ? '--tpm' : undefined].filter((flag) => flag !== undefined);
  if (paced.length > 0)
    throw new UsageError(`${paced.join(' and ')} pace synchronous model calls, and --batch-api makes none: leave ${paced.length === 1 ? 'it' : 'them'} out`);
  if (!Number.isInteger(args.batchPollMs) || args.batchPollMs < 1)
    throw new UsageError(`--batch-poll-ms must be a whole number of milliseconds from 1 up, got ${String(args.batchPollMs)}`);
  if (!Number.isInteger(args.batchRetries) || args.batchRetries < 0)
    throw new UsageError(`--batch-retries must be a whole number from 0 up, got ${String(args.batchRetries)}`);
  return { pollMs: args.batchPollMs, retries: args.batchRetries, cancelOnExit: args.cancelOnExit };
}
