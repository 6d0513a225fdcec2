// compressStream on the --strategy llm path: a record whose summary never comes (an endpoint that
// accepts the request and never answers) leaves, uncompressed with status error, once its --timeout has
// passed, also when a garbage collection runs while it waits.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { InputRecord, Trajectory } from '@hermes-datagen/core';
import { compressStream, type Processed } from '@hermes-datagen/compress/internal/stream.js';
import type { Summarizer } from '@hermes-datagen/compress/internal/summarizer.js';
import { longRun, quarterCounter, settings } from './helpers.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function inputRecord(value: Trajectory, line: number): InputRecord {
  const raw = JSON.stringify(value);
  return { value: JSON.parse(raw) as Record<string, unknown>, raw, bytes: Buffer.from(raw), place: { source: '<stdin>', line }, kind: 'record' };
}

/** A summariser whose calls end only when their signal aborts; `waiting` settles once every record has called it. */
function neverAnswers(records: number): Summarizer & { waiting: Promise<void> } {
  let calls = 0;
  let allWaiting = (): void => undefined;
  const waiting = new Promise<void>((resolve) => {
    allWaiting = resolve;
  });
  return {
    waiting,
    summarize: (_region, _start, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        if (++calls === records) allWaiting();
      }),
  };
}

async function* oneBatch(records: InputRecord[]): AsyncGenerator<InputRecord[]> {
  yield records;
}

async function all(results: AsyncIterable<Processed>): Promise<Processed[]> {
  const out: Processed[] = [];
  for await (const processed of results) out.push(processed);
  return out;
}

describe('compressStream with a summariser that never answers', () => {
  it('emits each record with status timeout once --timeout has passed, though memory was collected meanwhile', async () => {
    const records = [inputRecord(longRun(12), 1), inputRecord(longRun(13), 2)];
    const summarizer = neverAnswers(records.length);
    const env = { config: settings({ strategy: 'llm', reducers: [], targetMaxTokens: 2000 }), counter: quarterCounter, summarizer };
    const run = new AbortController();
    const results = all(compressStream(oneBatch(records), env, { configHash: 'h', concurrency: 4, timeoutMs: 200, signal: run.signal }, (r) => r));
    await summarizer.waiting;
    // In a later task, so nothing created while the records started is still kept alive for the
    // current job: the collection takes whatever only weak references hold (Node 20's AbortSignal.any
    // holds its sources so, nodejs/node#57736, and lost the records' timeouts this way).
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    // Stops the run if a deadline was lost, so the test fails instead of hanging. Timers fire in the
    // order they fall due, so on a slow machine too this comes after the records' 200 ms.
    const backstop = setTimeout(() => run.abort('SIGTERM'), 5000);
    const out = await results;
    clearTimeout(backstop);
    expect(out.map((p) => p.record.place.line)).toEqual([1, 2]);
    for (const { outcome } of out) expect(outcome).toMatchObject({ status: 'error', reason: 'timeout', strategy: null });
  });
});
