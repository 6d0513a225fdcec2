// The model client of --batch-api: each model call of an agent (sub-agents alike) becomes one request
// of a provider batch, and the call resolves when the batch's output brings its reply, so the agent
// loop runs unchanged and every prompt advances on its own. Calls are gathered into rounds: a round is
// sent once no new call came for GATHER_QUIET_MS (every running agent is then waiting for its reply,
// or busy with tools for longer), or GATHER_MAX_MS after its first call, or when it holds a batch's
// worth of requests. A round's requests are written as input files within the API's limits
// (batchInput.ts), each uploaded, recorded in the ledger, created as a batch, recorded again, and
// only then polled: first after --batch-poll-ms, then every tenth of the batch's age (so a batch is seen
// done at most 10% late), at least --batch-poll-ms and at most ten times it apart.
// A batch that ends brings its output and error files: each reply goes to its call; a failed entry, or
// one the batch never answered (expired, cancelled, failed), is sent again in the next round under a
// new custom_id, up to --batch-retries times, then its prompt fails as `batch-failed`.
//
// On --resume a call whose (record, turn) the ledger holds for the very same request re-attaches to
// the batch it went in instead of being submitted again; an upload the kill left without its batch
// line is looked up among the provider's batches by its input file and created only if none was.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '@hermes-datagen/core';
import type { ChatClient, ChatRequestOptions, WaitTracker } from '@hermes-datagen/core/endpoint';
import { APIError, APIUserAbortError } from 'openai/core/error';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { requestHash } from '../agentCalls.js';
import { FINAL_STATUSES, type BatchApi, type BatchObject } from './batchApiClient.js';
import { readBatchOutput, splitBatches, type BatchLimits, type BatchOutcome } from './batchInput.js';
import type { BatchLedger, Upload } from './batchLedger.js';
import { customId } from './customId.js';

/** A round is sent once no new call came for this long... */
export const GATHER_QUIET_MS = 200;
/** ...or this long after its first call, whichever is first. */
export const GATHER_MAX_MS = 5_000;
/** The poll interval grows up to this many times --batch-poll-ms... */
const POLL_GROWTH_CAP = 10;
/** ...as this share of the batch's age. */
const POLL_AGE_SHARE = 0.1;

/** A call's request failed in every batch it was sent in (--batch-retries + 1 times), or could go in none. */
export class BatchRequestFailed extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'BatchRequestFailed';
  }
}

export interface BatchRoundsOptions {
  readonly api: BatchApi;
  readonly ledger: BatchLedger;
  readonly limits: BatchLimits;
  /** --batch-poll-ms: the first wait before a batch is polled, and the least between two polls. */
  readonly pollMs: number;
  /** --batch-retries: how often a failed entry is sent again. */
  readonly retries: number;
  /** Put in each batch's metadata, so the provider's console shows whose it is. */
  readonly runName: string;
  readonly log: Logger;
  /** Told when a round goes out or a batch changes status: the progress line is redrawn (calls finish seldom). */
  readonly onChange?: (() => void) | undefined;
}

interface Call {
  readonly id: string;
  readonly turn: number;
  readonly request: string;
  readonly body: ChatCompletionCreateParamsNonStreaming;
  readonly signal: AbortSignal | undefined;
  readonly waits: WaitTracker | undefined;
  readonly resolve: (reply: ChatCompletion) => void;
  readonly reject: (error: unknown) => void;
  customId: string;
  /** Sends of this call in this invocation. */
  sent: number;
  /** Why its last send failed. */
  lastError?: string;
  settled: boolean;
}

/** What the progress line shows of the batches. */
export interface BatchProgress {
  readonly rounds: number;
  /** Batches polled now, by status. */
  readonly inFlight: ReadonlyMap<string, number>;
  readonly answered: number;
  readonly failed: number;
  readonly submitted: number;
  /** completed_at - created_at of the last batch that completed, by the provider's clock (seconds). */
  readonly providerSeconds: number | undefined;
}

export class BatchRounds {
  public readonly client: ChatClient;
  private queue: Call[] = [];
  /** custom_id -> the call waiting for its answer. */
  private readonly waiting = new Map<string, Call>();
  /** Uploads being polled (or created), with their last known status. */
  private readonly polled = new Map<Upload, string>();
  /** Uploads whose batch ended in this invocation (none is cancelled at exit). */
  private readonly ended = new Set<Upload>();
  /** Replies of an ended batch no call was waiting for yet (a resumed prompt not started, or stopped): custom_id -> reply. */
  private readonly answers = new Map<string, ChatCompletion>();
  private quietTimer: NodeJS.Timeout | undefined;
  private maxTimer: NodeJS.Timeout | undefined;
  private readonly stopped = new AbortController();
  private readonly work = new Set<Promise<void>>();
  private rounds = 0;
  private answered = 0;
  /** Requests sent in a batch whose entry failed, expired or was cancelled (each sent again, or its prompt failed). */
  private failedEntries = 0;
  private submitted = 0;
  private providerSeconds: number | undefined;

  public constructor(private readonly options: BatchRoundsOptions) {
    this.client = { chat: { completions: { create: (body, requestOptions) => this.create(body, requestOptions) } } };
  }

  public get progress(): BatchProgress {
    const inFlight = new Map<string, number>();
    for (const status of this.polled.values()) inFlight.set(status, (inFlight.get(status) ?? 0) + 1);
    return {
      rounds: this.rounds,
      inFlight,
      answered: this.answered,
      failed: this.failedEntries,
      submitted: this.submitted,
      providerSeconds: this.providerSeconds,
    };
  }

  /** The progress line's part: rounds, batches in flight by status, requests answered of those sent, the provider's time. */
  public progressLine(): string {
    const { rounds, inFlight, answered, failed, submitted, providerSeconds } = this.progress;
    const states = [...inFlight].map(([status, count]) => `${count} ${status}`).join(', ');
    const provider = providerSeconds === undefined ? '' : `, provider ${providerSeconds} s a batch`;
    return ` | batch API: round ${rounds}, ${inFlight.size === 0 ? 'no batch' : states} in flight, ${answered}/${submitted} requests answered${failed === 0 ? '' : `, ${failed} failed`}${provider}`;
  }

  /**
   * Stops polling and gathering and closes the ledger. Calls still waiting are left to their prompts'
   * signals. With `cancel` (--cancel-on-exit) every batch of the run not done with is cancelled at the provider.
   */
  public async close(cancel: boolean): Promise<void> {
    this.stopped.abort();
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    await Promise.allSettled([...this.work]);
    if (cancel) await this.cancelOpen();
    this.options.ledger.close();
  }

  private async cancelOpen(): Promise<void> {
    for (const upload of this.options.ledger.open) {
      if (upload.batch === undefined || this.ended.has(upload)) continue;
      try {
        const batch = await this.options.api.cancelBatch(upload.batch);
        this.options.ledger.recordClosed(upload, batch.status === 'cancelled' || batch.status === 'cancelling' ? 'cancelled' : batch.status);
        this.options.log.info(`--cancel-on-exit: batch ${upload.batch} cancelled (${batch.status})`);
      } catch (error) {
        this.options.log.warn(`--cancel-on-exit: batch ${upload.batch} could not be cancelled: ${describe(error)}`);
      }
    }
  }

  private create(body: ChatCompletionCreateParamsNonStreaming, requestOptions: ChatRequestOptions = {}): Promise<ChatCompletion> {
    const named = requestOptions.call;
    if (named === undefined) return Promise.reject(new Error('a batch API call needs its record id and turn (ChatRequestOptions.call)'));
    const { signal, waits } = requestOptions;
    if (signal?.aborted) return Promise.reject(new APIUserAbortError());
    return new Promise<ChatCompletion>((resolve, reject) => {
      waits?.begin();
      const onAbort = (): void => this.abandon(call, new APIUserAbortError());
      const call: Call = {
        id: named.id,
        turn: named.turn,
        request: requestHash(body),
        body,
        signal,
        waits,
        resolve: (reply) => {
          signal?.removeEventListener('abort', onAbort);
          waits?.end();
          resolve(reply);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          waits?.end();
          reject(error);
        },
        customId: '',
        sent: 0,
        settled: false,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const earlier = this.options.ledger.submission(call.id, call.turn);
      if (earlier !== undefined && earlier.request === call.request && earlier.upload.closed === undefined) {
        // Submitted before for this very request: its batch answers it.
        call.customId = earlier.customId;
        call.sent = 1;
        this.submitted += 1;
        const answer = this.answers.get(call.customId);
        if (answer !== undefined) {
          this.answers.delete(call.customId);
          this.answered += 1;
          return this.settle(call, { reply: answer });
        }
        this.waiting.set(call.customId, call);
        this.follow(earlier.upload);
        return;
      }
      this.enqueue(call);
    });
  }

  private enqueue(call: Call): void {
    call.customId = customId({ id: call.id, turn: call.turn, attempt: this.options.ledger.nextAttempt(call.id, call.turn) });
    this.queue.push(call);
    if (this.queue.length >= this.options.limits.maxRequests) {
      this.flush();
      return;
    }
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), GATHER_QUIET_MS);
    this.maxTimer ??= setTimeout(() => this.flush(), GATHER_MAX_MS);
  }

  private abandon(call: Call, error: unknown): void {
    if (call.settled) return;
    // Left in the queue, if it is there: a round takes only calls not settled (filtering here would cost
    // the whole queue for each of thousands of prompts stopped at once).
    call.settled = true;
    if (this.waiting.get(call.customId) === call) this.waiting.delete(call.customId);
    call.reject(error);
  }

  private settle(call: Call, outcome: { reply: ChatCompletion } | { error: unknown }): void {
    if (call.settled) return;
    call.settled = true;
    this.waiting.delete(call.customId);
    if ('reply' in outcome) call.resolve(outcome.reply);
    else call.reject(outcome.error);
  }

  /** The round so far goes out: its input files, each uploaded, created and followed. */
  private flush(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.quietTimer = undefined;
    this.maxTimer = undefined;
    const calls = this.queue.filter((call) => !call.settled);
    this.queue = [];
    if (calls.length === 0 || this.stopped.signal.aborted) return;
    this.rounds += 1;
    this.options.onChange?.();
    const { chunks, oversized } = splitBatches(
      calls.map((call) => ({ customId: call.customId, body: call.body, call })),
      this.options.limits,
    );
    for (const { call } of oversized) {
      this.settle(call, {
        error: new BatchRequestFailed(`the request of ${call.customId} is larger than a batch input file may be (${this.options.limits.maxBytes} bytes)`),
      });
    }
    chunks.forEach((chunk, index) => {
      const members = chunk.requests.map((request) => request.call);
      this.track(this.submit(members, chunk.text, `${this.options.runName}-round${this.rounds}-${index + 1}.jsonl`), () => members);
    });
  }

  /** A round's or a batch's work, awaited by close(). One that throws (the ledger cannot be written) fails the calls it holds. */
  private track(task: Promise<void>, calls: () => readonly Call[]): void {
    const tracked = task.catch((error: unknown) => {
      if (this.stopped.signal.aborted) return;
      this.options.log.error(`the batch API's bookkeeping failed: ${describe(error)}`);
      for (const call of calls()) this.settle(call, { error });
    });
    this.work.add(tracked);
    void tracked.finally(() => this.work.delete(tracked));
  }

  /** The record is committed: the ledger forgets its attempts. */
  public committed(id: string): void {
    this.options.ledger.committed(id);
  }

  private async submit(calls: Call[], text: string, filename: string): Promise<void> {
    const { api, ledger } = this.options;
    for (const call of calls) {
      call.sent += 1;
      this.waiting.set(call.customId, call);
    }
    let file: string;
    try {
      file = await api.uploadFile(filename, text, this.stopped.signal);
    } catch (error) {
      return this.failed(calls, error, 'the input file could not be uploaded');
    }
    const upload = ledger.recordUpload(
      file,
      calls.map((call) => ({ customId: call.customId, request: call.request })),
    );
    this.submitted += calls.length;
    await this.created(upload);
  }

  /** Creates the upload's batch, recorded before it is polled; a creation that may have happened is looked up first. */
  private async created(upload: Upload, lookUp = false): Promise<void> {
    const { api, ledger } = this.options;
    this.polled.set(upload, 'submitting');
    try {
      const found = lookUp ? await this.findBatch(upload.file) : undefined;
      const batch = found ?? (await api.createBatch(upload.file, { run: this.options.runName }, this.stopped.signal));
      ledger.recordBatch(upload, batch.id);
      this.polled.set(upload, batch.status);
    } catch (error) {
      this.polled.delete(upload);
      if (this.stopped.signal.aborted) return;
      this.failedEntries += this.callsOf(upload).length;
      // Refused as it is: no batch was made of the file. Anything else: the next invocation looks it up.
      if (
        error instanceof APIError &&
        error.status !== undefined &&
        error.status < 500 &&
        error.status !== 429 &&
        error.status !== 408 &&
        error.status !== 409
      ) {
        ledger.recordClosed(upload, 'not-created');
      }
      return this.failed(this.callsOf(upload), error, 'the batch could not be created');
    }
    await this.poll(upload);
  }

  /** The provider's batch made of this input file, if any (newest first, page by page). */
  private async findBatch(file: string): Promise<BatchObject | undefined> {
    let after: string | undefined;
    for (;;) {
      const page = await this.options.api.listBatches(after, this.stopped.signal);
      const batch = page.data.find((candidate) => candidate.input_file_id === file);
      if (batch !== undefined || !page.hasMore || page.data.length === 0) return batch;
      after = page.data.at(-1)!.id;
    }
  }

  /** Starts polling an upload of an earlier invocation (once), creating its batch first if the kill came before. */
  private follow(upload: Upload): void {
    if (this.polled.has(upload) || this.stopped.signal.aborted) return;
    this.track(upload.batch === undefined ? this.created(upload, true) : this.poll(upload), () => this.callsOf(upload));
  }

  /** Polls the upload's batch until it ends, then hands its outcomes over. */
  private async poll(upload: Upload): Promise<void> {
    const { api, pollMs, log } = this.options;
    const id = upload.batch!;
    this.polled.set(upload, this.polled.get(upload) ?? 'polling');
    const since = Date.now();
    let interval = pollMs;
    let warned = false;
    try {
      for (;;) {
        await pause(interval, this.stopped.signal);
        interval = Math.min(pollMs * POLL_GROWTH_CAP, Math.max(pollMs, (Date.now() - since) * POLL_AGE_SHARE));
        if (this.callsOf(upload).length === 0) return; // nobody waits for it any more (their prompts stopped)
        let batch: BatchObject;
        try {
          batch = await api.retrieveBatch(id, this.stopped.signal);
        } catch (error) {
          if (this.stopped.signal.aborted) return;
          if (!warned) log.warn(`batch ${id} could not be polled (${describe(error)}); polling on`, undefined, 'batch-poll');
          warned = true;
          continue;
        }
        this.polled.set(upload, batch.status);
        this.options.onChange?.();
        if (FINAL_STATUSES.has(batch.status)) return await this.finish(upload, batch);
      }
    } catch (error) {
      if (!this.stopped.signal.aborted) throw error;
    } finally {
      this.polled.delete(upload);
    }
  }

  /** A batch ended: its output and error files are read, each answer goes to its call, the rest are sent again. */
  private async finish(upload: Upload, batch: BatchObject): Promise<void> {
    const outcomes: BatchOutcome[] = [];
    for (const file of [batch.output_file_id, batch.error_file_id]) {
      if (file === undefined || file === null) continue;
      let text: string;
      try {
        text = await this.options.api.fileContent(file, this.stopped.signal);
      } catch (error) {
        if (this.stopped.signal.aborted) return;
        // Left open: the next invocation (or this one's next poll of a re-attached call) reads it again.
        return this.failed(
          this.callsOf(upload),
          error,
          `the ${file === batch.output_file_id ? 'output' : 'error'} file of batch ${batch.id} could not be read`,
        );
      }
      const read = readBatchOutput(text);
      if (read.unreadable.length > 0)
        this.options.log.warn(`file ${file} of batch ${batch.id}: lines ${read.unreadable.join(', ')} are unreadable; their requests are sent again`);
      outcomes.push(...read.outcomes);
    }
    if (batch.status === 'completed' && batch.completed_at != null) this.providerSeconds = batch.completed_at - batch.created_at;
    this.ended.add(upload);
    const mine = new Set(upload.requests.map((request) => request.customId));
    const answered = new Set<string>();
    const again: Call[] = [];
    let unclaimed = 0;
    for (const outcome of outcomes) {
      if (answered.has(outcome.customId) || !mine.has(outcome.customId)) continue;
      answered.add(outcome.customId);
      const call = this.waiting.get(outcome.customId);
      if (call === undefined) {
        // Kept for its call, should it come (a resumed prompt that has not reached this turn yet).
        if (outcome.ok) this.answers.set(outcome.customId, outcome.reply);
        unclaimed += outcome.ok ? 1 : 0;
        continue;
      }
      if (outcome.ok) {
        this.answered += 1;
        this.settle(call, { reply: outcome.reply });
      } else {
        call.lastError = outcome.error;
        again.push(call);
      }
    }
    const why = batch.status === 'completed' ? 'the batch completed without an answer for it' : `the batch ended ${batch.status}${batchErrors(batch)}`;
    for (const call of this.callsOf(upload)) {
      if (answered.has(call.customId)) continue;
      call.lastError = why;
      again.push(call);
    }
    this.failedEntries += again.length;
    this.sendAgain(again);
    // The agents take their replies (and journal them) before the batch is marked done with; a batch
    // with replies nobody took yet stays open, for the invocation whose prompt comes to take it.
    await nextTurn();
    if (unclaimed === 0) this.options.ledger.recordClosed(upload, batch.status);
  }

  /** Calls whose send failed: each again under a new custom_id while its retries last, else its prompt fails. */
  private failed(calls: readonly Call[], error: unknown, what: string): void {
    // A refusal of the request as it is (a key refused, a route missing) fails the prompt as doctor names it.
    if (
      error instanceof APIError &&
      error.status !== undefined &&
      error.status >= 400 &&
      error.status < 500 &&
      error.status !== 408 &&
      error.status !== 409 &&
      error.status !== 429
    ) {
      for (const call of calls) this.settle(call, { error });
      return;
    }
    for (const call of calls) call.lastError = `${what}: ${describe(error)}`;
    this.sendAgain(calls);
  }

  private sendAgain(calls: readonly Call[]): void {
    for (const call of calls) {
      if (call.settled) continue;
      this.waiting.delete(call.customId);
      if (call.sent > this.options.retries) {
        const times = call.sent === 1 ? 'once' : `${call.sent} times`;
        this.settle(call, {
          error: new BatchRequestFailed(
            `the batch API failed the request of turn ${call.turn} ${times} (--batch-retries ${this.options.retries}); last: ${call.lastError ?? 'unknown'}`,
          ),
        });
        continue;
      }
      if (this.stopped.signal.aborted) continue;
      this.enqueue(call);
    }
  }

  private callsOf(upload: Upload): Call[] {
    const calls: Call[] = [];
    for (const request of upload.requests) {
      const call = this.waiting.get(request.customId);
      if (call !== undefined && !call.settled) calls.push(call);
    }
    return calls;
  }
}

function batchErrors(batch: BatchObject): string {
  const errors = batch.errors?.data ?? [];
  return errors.length === 0 ? '' : ` (${errors.map((error) => [error.code, error.message].filter(Boolean).join(': ')).join('; ')})`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
