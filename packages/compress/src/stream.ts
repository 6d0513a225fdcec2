// Records in, records out, in input order. Each record's compression may wait on the summariser, so
// up to `concurrency` records are in flight; results leave in input order, so the reorder buffer is
// never wider than the records in flight. A record that runs past the per-record timeout (or is still
// in flight when the run is stopped) is emitted uncompressed with status error: never dropped.
import type { InputRecord, Turn } from '@hermes-datagen/core';
import { compressConversation, type CompressEnv, type Outcome } from './compressRecord.js';

export interface Processed {
  readonly record: InputRecord;
  readonly outcome: Outcome;
}

export interface StreamOptions {
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** The recorded token count before an earlier hermes-compress run, when the record was compressed by one. */
export function previousOriginalTokens(value: Record<string, unknown>): number | undefined {
  const metadata = value['metadata'] as Record<string, unknown> | undefined;
  const previous = metadata?.['compression'] as Record<string, unknown> | undefined;
  return previous?.['status'] === 'compressed' && typeof previous['tokens_before'] === 'number' ? previous['tokens_before'] : undefined;
}

async function processOne(record: InputRecord, env: CompressEnv, options: StreamOptions, timed: boolean): Promise<Processed> {
  const turns = record.value['conversations'] as Turn[];
  // Only the summariser can wait; the deterministic strategies need no timer per record.
  const signal = timed ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]) : options.signal;
  try {
    return { record, outcome: await compressConversation(turns, env, signal, previousOriginalTokens(record.value)) };
  } catch (err) {
    if (!signal.aborted) throw err;
    const reason = options.signal.aborted ? 'interrupted' : 'timeout';
    const message = reason === 'timeout' ? `compression took longer than the per-record timeout (${options.timeoutMs / 1000} s)` : 'the run was stopped while this record was being compressed';
    return { record, outcome: { status: 'error', reason, strategy: null, target: null, tokensBefore: null, tokensAfter: null, message } };
  }
}

/**
 * Compressed results of `batches` in input order. `own(record)` must make a record safe to hold across
 * batches (the reader reuses its buffers), since results may wait for earlier ones.
 */
export async function* compressStream(
  batches: AsyncIterable<InputRecord[]>,
  env: CompressEnv,
  options: StreamOptions,
  own: (record: InputRecord) => InputRecord,
): AsyncGenerator<Processed> {
  const timed = env.config.strategy === 'llm';
  if (!timed) {
    for await (const batch of batches) for (const record of batch) yield await processOne(record, env, options, false);
    return;
  }
  const inFlight: Promise<Processed>[] = [];
  for await (const batch of batches) {
    for (const record of batch) {
      const processed = processOne(own(record), env, options, true);
      // Awaited in turn below; this only keeps a failure of a later record from counting as unhandled meanwhile.
      processed.catch(() => undefined);
      inFlight.push(processed);
      if (inFlight.length >= options.concurrency) yield await (inFlight.shift() as Promise<Processed>);
    }
  }
  while (inFlight.length > 0) yield await (inFlight.shift() as Promise<Processed>);
}
