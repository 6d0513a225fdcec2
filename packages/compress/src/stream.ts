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
  /** configHash() of the settings: a record compressed under the same ones passes through. */
  readonly configHash: string;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** What an earlier hermes-compress run recorded in the record's metadata.compression. */
interface Previous {
  /** The token count before it, when it compressed the record. */
  readonly originalTokens: number | undefined;
  /** It compressed the record under the same settings: running them again cannot do better. */
  readonly sameSettings: boolean;
  readonly tokensAfter: number | null;
  readonly target: number | null;
}

export function previousRun(value: Record<string, unknown>, configHash: string): Previous {
  const metadata = value['metadata'] as Record<string, unknown> | undefined;
  const previous = metadata?.['compression'] as Record<string, unknown> | undefined;
  const compressed = previous?.['status'] === 'compressed';
  const number = (key: string): number | null => (typeof previous?.[key] === 'number' ? (previous[key] as number) : null);
  return {
    originalTokens: compressed ? (number('tokens_before') ?? undefined) : undefined,
    sameSettings: compressed && previous?.['config_hash'] === configHash,
    tokensAfter: number('tokens_after'),
    target: number('target'),
  };
}

/**
 * The signal of one record: aborted when the run is stopped or `ms` after now. Not
 * AbortSignal.any([run, AbortSignal.timeout(ms)]): Node 20's any() holds its sources only by weak
 * reference (nodejs/node#57736), so a garbage collection while the record waited took the timeout
 * signal, and its timer with it, and a record whose endpoint never answered was never timed out (the
 * process then hung). Here the pending timer holds the deadline's controller, so its signal lives.
 */
function recordSignal(run: AbortSignal, ms: number): { signal: AbortSignal; clear(): void } {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException(`no result within ${ms / 1000} s`, 'TimeoutError')), ms);
  return { signal: AbortSignal.any([run, deadline.signal]), clear: () => clearTimeout(timer) };
}

async function processOne(record: InputRecord, env: CompressEnv, options: StreamOptions, timed: boolean): Promise<Processed> {
  const turns = record.value['conversations'] as Turn[];
  const previous = previousRun(record.value, options.configHash);
  if (previous.sameSettings) {
    const tokens = previous.tokensAfter;
    return {
      record,
      outcome: { status: 'skipped', reason: 'already_compressed', strategy: null, target: previous.target, tokensBefore: tokens, tokensAfter: tokens },
    };
  }
  // Only the summariser can wait; the deterministic strategies need no timer per record.
  const deadline = timed ? recordSignal(options.signal, options.timeoutMs) : undefined;
  const signal = deadline?.signal ?? options.signal;
  try {
    return { record, outcome: await compressConversation(turns, env, signal, previous.originalTokens) };
  } catch (err) {
    if (!signal.aborted) throw err;
    const reason = options.signal.aborted ? 'interrupted' : 'timeout';
    const message =
      reason === 'timeout'
        ? `compression took longer than the per-record timeout (${options.timeoutMs / 1000} s)`
        : 'the run was stopped while this record was being compressed';
    return { record, outcome: { status: 'error', reason, strategy: null, target: null, tokensBefore: null, tokensAfter: null, message } };
  } finally {
    deadline?.clear();
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
