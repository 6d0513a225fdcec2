// serve's batch API flags (batch.ts): the completion delay, failed lines, expired batches and the limits per file.
import { UsageError, type Argv } from '@hermes-datagen/core';
import { DEFAULT_BATCH_DELAY_MS, type BatchOptions } from './batch.js';
import { OPENAI_BATCH_LIMITS } from './batchInput.js';

const BATCH = 'Batch API (/files, /batches; docs: packages/testkit/README.md):';

export function batchFlags<T>(y: Argv<T>) {
  return y
    .option('batch-delay-ms', {
      type: 'number',
      default: DEFAULT_BATCH_DELAY_MS,
      describe: 'how long a batch stays in_progress before its lines are answered',
      group: BATCH,
    })
    .option('batch-fail-share', {
      type: 'number',
      default: 0,
      describe: 'share of lines (0-1) a batch fails to run (error file, error batch_failed); seeded by --seed, drawn anew for a resubmitted custom_id',
      group: BATCH,
    })
    .option('batch-expire-share', { type: 'number', default: 0, describe: 'share of batches (0-1) that expire; seeded by --seed', group: BATCH })
    .option('batch-expire-nth', {
      type: 'number',
      array: true,
      describe: 'the batches that expire, by their number in creation order from 1 (repeatable)',
      group: BATCH,
    })
    .option('batch-max-requests', {
      type: 'number',
      default: OPENAI_BATCH_LIMITS.maxRequests,
      describe: 'requests an input file may hold; a file over it fails its batch (request_limit_exceeded)',
      group: BATCH,
    })
    .option('batch-max-bytes', {
      type: 'number',
      default: OPENAI_BATCH_LIMITS.maxBytes,
      describe: 'bytes an input file may hold; a file over it fails its batch (file_too_large)',
      group: BATCH,
    });
}

export interface BatchArgs {
  'batch-delay-ms': number;
  'batch-fail-share': number;
  'batch-expire-share': number;
  'batch-expire-nth'?: number[] | undefined;
  'batch-max-requests': number;
  'batch-max-bytes': number;
}

export function batchFromArgs(args: BatchArgs): BatchOptions {
  if (!(args['batch-delay-ms'] >= 0 && Number.isFinite(args['batch-delay-ms']))) {
    throw new UsageError(`--batch-delay-ms must be a number of milliseconds from 0 up, got ${String(args['batch-delay-ms'])}`);
  }
  for (const flag of ['batch-fail-share', 'batch-expire-share'] as const) {
    const share = args[flag];
    if (!(share >= 0 && share <= 1)) throw new UsageError(`--${flag} must be a share from 0 to 1, got ${String(share)}`);
  }
  for (const nth of args['batch-expire-nth'] ?? []) {
    if (!(Number.isInteger(nth) && nth >= 1)) throw new UsageError(`--batch-expire-nth must be a batch number from 1 up, got ${String(nth)}`);
  }
  for (const flag of ['batch-max-requests', 'batch-max-bytes'] as const) {
    const limit = args[flag];
    if (!(Number.isInteger(limit) && limit >= 1)) throw new UsageError(`--${flag} must be a whole number above 0, got ${String(limit)}`);
  }
  return {
    delayMs: args['batch-delay-ms'],
    failShare: args['batch-fail-share'],
    expireShare: args['batch-expire-share'],
    expireNth: args['batch-expire-nth'] ?? [],
    maxRequests: args['batch-max-requests'],
    maxBytes: args['batch-max-bytes'],
  };
}
