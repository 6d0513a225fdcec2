// Sending groups to a running Atropos API server (docs/atropos.md#sending-to-an-atropos-server), as an
// environment does:
//  1. wait until GET /info reports a batch size: a group posted before the trainer's /register makes
//     the server skip its initialisation for good (the server's ordering bug);
//  2. POST /register-env (group size, max token length, a name, weight 1) until the server answers with
//     an env_id (it says "wait for trainer to start" until the trainer's first GET /batch), and send
//     every group under that id: the server packs registered environments' groups whatever other
//     environments ask (an unregistered producer's groups are never packed once any environment sets
//     min_batch_allocation);
//  3. POST /scored_data_list with a gzip body, one list of groups per trainer batch (groups whose
//     sequences add up to the batch size; the rest at the end);
//  4. 5xx and connection failures are retried with a doubling backoff; a 4xx stops the run with the
//     server's message (the data or the URL needs fixing, and resending the same cannot help);
//  5. at the end, GET /status: the groups still queued are reported as queued, not as consumed.
// Nothing is sent, and the server is not even asked, until there is a group to send.
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ChecksFailedError, RetryableError } from '@hermes-datagen/core';
import type { ScoredDataGroup } from './atropos.js';

const gzipAsync = promisify(gzip);

export interface ServerInfo {
  batch_size: number;
  max_token_len: number;
}

/** What POST /register-env sends: Atropos's RegisterEnv. */
export interface EnvRegistration {
  readonly max_token_length: number;
  readonly desired_name: string;
  readonly weight: number;
  readonly group_size: number;
}

export interface Registered {
  readonly envId: number;
  readonly name: string;
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

  /**
   * POST /register-env until the server gives an env_id: it answers "wait for trainer to start" until
   * the trainer's first GET /batch, so that is waited for as /info is, within the same --post-wait.
   */
  public async registerEnv(registration: EnvRegistration): Promise<Registered> {
    const deadline = Date.now() + this.options.waitMs;
    let said = false;
    for (;;) {
      const text = await this.request('/register-env', JSON.stringify(registration), false);
      let answer: { status?: unknown; env_id?: unknown; wandb_name?: unknown } = {};
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        // not JSON: reported below
      }
      if (typeof answer.env_id === 'number')
        return { envId: answer.env_id, name: typeof answer.wandb_name === 'string' ? answer.wandb_name : registration.desired_name };
      const why =
        answer.status === 'wait for trainer to start' ? 'the trainer has not asked for a batch yet' : `POST /register-env answered ${text.slice(0, 200)}`;
      if (Date.now() >= deadline) {
        throw new RetryableError(`gave up registering with ${this.base}/register-env after ${Math.round(this.options.waitMs / 1000)} s: ${why}`);
      }
      if (!said) this.options.note(`waiting to register with ${this.base}/register-env: ${why}`);
      said = true;
      await sleep(this.options.retryMs, this.options.signal);
    }
  }

  /** GET /status: the server's step and the number of groups queued (of every environment). */
  public async status(): Promise<{ current_step: number; queue_size: number } | undefined> {
    try {
      const response = await fetch(`${this.base}/status`, { signal: this.options.signal });
      const value = (await response.json()) as { current_step?: unknown; queue_size?: unknown };
      if (!response.ok || typeof value.queue_size !== 'number' || typeof value.current_step !== 'number') return undefined;
      return { current_step: value.current_step, queue_size: value.queue_size };
    } catch {
      return undefined;
    }
  }

  /** POSTs one list of groups; returns the server's groups_processed. */
  public async postGroups(groups: readonly ScoredDataGroup[]): Promise<number> {
    return groupsProcessed(await this.request('/scored_data_list', JSON.stringify(groups), true), groups.length);
  }

  /** A POST with retries on 5xx and failed connections; a 4xx is the end of the run. */
  private async request(path: string, json: string, compress: boolean): Promise<string> {
    const body = compress ? await gzipAsync(json) : json;
    let delay = this.options.retryMs;
    for (let attempt = 1; ; attempt += 1) {
      let why: string;
      try {
        const response = await fetch(`${this.base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(compress ? { 'content-encoding': 'gzip' } : {}) },
          body,
          signal: this.options.signal,
        });
        const text = await response.text();
        if (response.ok) return text;
        if (response.status < 500) {
          throw new ChecksFailedError(`POST ${this.base}${path} answered ${response.status}: ${text.slice(0, 1000)}`);
        }
        why = `answered ${response.status}: ${text.slice(0, 200)}`;
      } catch (err) {
        if (err instanceof ChecksFailedError || this.options.signal.aborted) throw err;
        why = `failed (${describe(err)})`;
      }
      if (attempt >= this.options.attempts) {
        throw new RetryableError(`POST ${this.base}${path} ${why}; gave up after ${attempt} attempts (run again to resend)`);
      }
      this.options.note(`POST ${path} ${why}; retrying in ${delay} ms`);
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
