// Sending groups to a running Atropos API server (docs/atropos.md#sending-to-an-atropos-server), as an unregistered producer:
//  1. wait until GET /info reports a batch size: a group posted before the trainer's /register makes
//     the server skip its initialisation for good (the server's ordering bug);
//  2. POST /scored_data_list with a gzip body, one list of groups per trainer batch (groups whose
//     sequences add up to the batch size; the rest at the end);
//  3. 5xx and connection failures are retried with a doubling backoff; a 4xx stops the run with the
//     server's message (the data or the URL needs fixing, and resending the same cannot help).
// No /register-env: an unregistered producer's groups go straight to the queue, unbuffered.
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ChecksFailedError, RetryableError } from '@hermes-datagen/core';
import type { ScoredDataGroup } from './atropos.js';

const gzipAsync = promisify(gzip);

export interface ServerInfo {
  batch_size: number;
  max_token_len: number;
}

export interface ClientOptions {
  readonly url: string;
  /** First retry delay, doubled each time; also the /info polling interval. */
  readonly retryMs: number;
  /** Attempts per request on 5xx or a failed connection. */
  readonly attempts: number;
  /** How long to wait for /info to report a batch size. */
  readonly waitMs: number;
  readonly signal: AbortSignal;
  /** Progress notes (waiting, retrying) for stderr. */
  readonly note: (message: string) => void;
}

export interface PostResult {
  batches: number;
  groups: number;
}

export class AtroposClient {
  private readonly base: string;

  public constructor(private readonly options: ClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  /** Polls GET /info until the trainer has registered (batch_size is no longer -1). */
  public async waitForInfo(): Promise<ServerInfo> {
    const deadline = Date.now() + this.options.waitMs;
    let said = false;
    for (;;) {
      let why: string;
      try {
        const response = await fetch(`${this.base}/info`, { signal: this.options.signal });
        const body = await response.text();
        if (response.ok) {
          const info = parseInfo(body);
          if (info && info.batch_size !== -1) return info;
          why = info ? 'the trainer has not registered yet (batch_size -1)' : `GET /info answered ${body.slice(0, 200)}`;
        } else if (response.status < 500) {
          throw new ChecksFailedError(`GET ${this.base}/info answered ${response.status}: ${body.slice(0, 500)} (is this an Atropos API server?)`);
        } else {
          why = `GET /info answered ${response.status}`;
        }
      } catch (err) {
        if (err instanceof ChecksFailedError || this.options.signal.aborted) throw err;
        why = `cannot reach ${this.base} (${describe(err)})`;
      }
      if (Date.now() >= deadline) {
        throw new RetryableError(`gave up waiting for ${this.base}/info to report a batch size after ${Math.round(this.options.waitMs / 1000)} s: ${why}`);
      }
      if (!said) this.options.note(`waiting for ${this.base}/info to report a batch size: ${why}`);
      said = true;
      await sleep(this.options.retryMs, this.options.signal);
    }
  }

  /** POSTs one list of groups; returns the server's groups_processed. */
  public async postGroups(groups: readonly ScoredDataGroup[]): Promise<number> {
    const body = await gzipAsync(JSON.stringify(groups));
    let delay = this.options.retryMs;
    for (let attempt = 1; ; attempt += 1) {
      let why: string;
      try {
        const response = await fetch(`${this.base}/scored_data_list`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body,
          signal: this.options.signal,
        });
        const text = await response.text();
        if (response.ok) return groupsProcessed(text, groups.length);
        if (response.status < 500) {
          throw new ChecksFailedError(`POST ${this.base}/scored_data_list answered ${response.status}: ${text.slice(0, 1000)}`);
        }
        why = `answered ${response.status}: ${text.slice(0, 200)}`;
      } catch (err) {
        if (err instanceof ChecksFailedError || this.options.signal.aborted) throw err;
        why = `failed (${describe(err)})`;
      }
      if (attempt >= this.options.attempts) {
        throw new RetryableError(`POST ${this.base}/scored_data_list ${why}; gave up after ${attempt} attempts (run again to resend)`);
      }
      this.options.note(`POST /scored_data_list ${why}; retrying in ${delay} ms`);
      await sleep(delay, this.options.signal);
      delay *= 2;
    }
  }
}

function parseInfo(body: string): ServerInfo | null {
  try {
    const value = JSON.parse(body) as Partial<ServerInfo>;
    return typeof value.batch_size === 'number'
      ? { batch_size: value.batch_size, max_token_len: typeof value.max_token_len === 'number' ? value.max_token_len : -1 }
      : null;
  } catch {
    return null;
  }
}

function groupsProcessed(text: string, sent: number): number {
  try {
    const value = JSON.parse(text) as { groups_processed?: unknown };
    return typeof value.groups_processed === 'number' ? value.groups_processed : sent;
  } catch {
    return sent;
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
