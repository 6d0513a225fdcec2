// BatchRounds against the testkit's batch API in this process: one call's way through a round (gathered,
// uploaded, created, polled, answered) as the progress line shows it, a round sent while an earlier
// batch still runs, a round split into input files at the byte limit, a call aborted before its round
// went out never submitted, and a call without its record id and turn refused.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiKey, Logger } from '@hermes-datagen/core';
import type { ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../../util/scriptedEndpoint.js';
import { BatchApi } from '@hermes-datagen/generate/internal/batchApi/batchApiClient.js';
import { inputLine, OPENAI_BATCH_LIMITS } from '@hermes-datagen/generate/internal/batchApi/batchInput.js';
import { BatchLedger } from '@hermes-datagen/generate/internal/batchApi/batchLedger.js';
import { BatchRounds } from '@hermes-datagen/generate/internal/batchApi/batchRounds.js';
import { tempDir } from '../../util/cli.js';
import { until } from '../../util/until.js';

const log = new Logger('test', new PassThrough(), { color: false });
const body = { model: 'test-model', messages: [{ role: 'user' as const, content: 'say hello' }] };

async function rounds(delayMs: number, limits = OPENAI_BATCH_LIMITS): Promise<{ rounds: BatchRounds; server: ScriptedEndpoint }> {
  const server = await scriptedEndpoint({ batch: { delayMs, ...limits } });
  const ledger = await BatchLedger.open(tempDir('hermes-rounds-'), () => false, log);
  const api = new BatchApi({ baseUrl: server.url, apiKey: new ApiKey('sk-rounds-test-key'), headers: [], proxy: undefined });
  return { rounds: new BatchRounds({ api, ledger, limits, pollMs: 10, retries: 1, runName: 'unit', log }), server };
}

describe('BatchRounds', () => {
  it('answers a call from its batch, and the progress line follows it', async () => {
    const { rounds: batch, server } = await rounds(300);
    expect(batch.progressLine()).toBe(' | batch API: round 0, no batch in flight, 0/0 requests answered');
    const reply = batch.client.chat.completions.create(body, { call: { id: 'p1', turn: 0 } });
    await until(() => batch.progress.inFlight.get('in_progress') === 1);
    expect(batch.progressLine()).toBe(' | batch API: round 1, 1 in_progress in flight, 0/1 requests answered');
    const completion = await reply;
    expect(completion.choices[0]?.message).toBeDefined();
    // The batch is done with once its replies were taken (then the ledger closes it).
    await until(() => batch.progress.inFlight.size === 0);
    expect(batch.progressLine()).toMatch(/^ \| batch API: round 1, no batch in flight, 1\/1 requests answered, provider \d+ s a batch$/);
    expect([...server.stats.batch.submissions]).toEqual([['p1@t0', 1]]);
    expect(server.stats.requests).toBe(0);
    await batch.close(false);
  });

  it('sends a round while an earlier batch is still running: each call is answered by its own', async () => {
    // The first batch takes long enough for the second round to go out meanwhile (200 ms of quiet).
    const { rounds: batch, server } = await rounds(3000);
    let firstAnswered = false;
    const first = batch.client.chat.completions.create(body, { call: { id: 'early', turn: 0 } }).then((reply) => {
      firstAnswered = true;
      return reply;
    });
    await until(() => batch.progress.inFlight.get('in_progress') === 1);
    const second = batch.client.chat.completions.create(body, { call: { id: 'late', turn: 0 } });
    await until(() => server.stats.batch.batchesCreated === 2);
    expect(firstAnswered).toBe(false);
    expect(batch.progress.rounds).toBe(2);
    await Promise.all([first, second]);
    expect([...server.stats.batch.submissions.keys()].sort()).toEqual(['early@t0', 'late@t0']);
    await batch.close(false);
  });

  it("splits a round into input files within the API's byte limit, and every call is answered", async () => {
    const line = Buffer.byteLength(inputLine({ customId: 'p0@t0', body }));
    // Two requests a file.
    const { rounds: batch, server } = await rounds(10, { maxRequests: OPENAI_BATCH_LIMITS.maxRequests, maxBytes: Math.floor(line * 2.5) });
    const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => batch.client.chat.completions.create(body, { call: { id: `p${i}`, turn: 0 } })));
    expect(replies).toHaveLength(5);
    expect(batch.progress.rounds).toBe(1);
    expect(server.stats.batch.batchesCreated).toBe(3);
    expect(server.stats.batch.batchesFailed).toBe(0);
    await batch.close(false);
  });

  it('never submits a call aborted before its round went out', async () => {
    const { rounds: batch, server } = await rounds(10);
    const abort = new AbortController();
    const waiting = batch.client.chat.completions.create(body, { call: { id: 'p1', turn: 0 }, signal: abort.signal });
    abort.abort();
    await expect(waiting).rejects.toThrow(/abort/i);
    const answered = await batch.client.chat.completions.create(body, { call: { id: 'p2', turn: 0 } });
    expect(answered.choices).toHaveLength(1);
    expect([...server.stats.batch.submissions.keys()]).toEqual(['p2@t0']);
    await batch.close(false);
  });

  it('refuses a call that does not say its record id and turn', async () => {
    const { rounds: batch } = await rounds(10);
    await expect(batch.client.chat.completions.create(body)).rejects.toThrow(/needs its record id and turn/);
    await batch.close(false);
  });
});
