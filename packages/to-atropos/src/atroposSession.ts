// One run's connection to an Atropos API server (--post), opened when the first group is ready to send,
// so a run with nothing to send never waits on a trainer: /info (batch size, max token length),
// /register-env (the env_id every group is sent under), a check that the group size can fill the
// trainer's batches, then the groups in lists of one trainer batch, and at the end the server's queue.
import { UsageError, type RunContext } from '@hermes-datagen/core';
import type { ScoredDataGroup } from './atropos.js';
import type { AtroposClient } from './atroposClient.js';

export interface SessionOptions {
  readonly groupSize: number;
  /** --max-token-len; else /info's. */
  readonly maxTokenLen: number | undefined;
  /** --post-name: the environment's desired_name. */
  readonly name: string;
  readonly stats: RunContext['stats'];
  readonly info: (message: string) => void;
  readonly warn: (message: string) => void;
}

export interface Connection {
  readonly batchSize: number;
  readonly maxTokenLen: number | undefined;
  readonly envId: number;
}

export class AtroposSession {
  private connected: Promise<Connection> | undefined;
  private pending: ScoredDataGroup[] = [];
  private pendingSequences = 0;

  public constructor(
    private readonly client: AtroposClient,
    private readonly options: SessionOptions,
  ) {}

  public connection(): Promise<Connection> {
    this.connected ??= this.connect();
    return this.connected;
  }

  /** Queues a group; sends the queue once it holds a trainer batch. */
  public async send(group: ScoredDataGroup): Promise<void> {
    const { batchSize } = await this.connection();
    this.pending.push(group);
    this.pendingSequences += group.tokens.length;
    if (this.pendingSequences >= batchSize) await this.post();
  }

  /** Sends what is left, and reads how many groups the server still holds for a trainer. */
  public async finish(): Promise<void> {
    if (this.connected === undefined) return;
    if (this.pending.length > 0) await this.post();
    const status = await this.client.status();
    if (status) this.options.stats.add('server_queue_groups', status.queue_size);
  }

  private async connect(): Promise<Connection> {
    const { options } = this;
    const info = await this.client.waitForInfo();
    checkBatching(options.groupSize, info.batch_size, options.warn);
    const maxTokenLen = options.maxTokenLen ?? (info.max_token_len > 0 ? info.max_token_len : undefined);
    const registered = await this.client.registerEnv({
      max_token_length: maxTokenLen ?? info.max_token_len,
      desired_name: options.name,
      weight: 1,
      group_size: options.groupSize,
    });
    options.info(
      `registered as env_id ${registered.envId} (${registered.name}): group size ${options.groupSize}, ` +
        `max token length ${maxTokenLen ?? 'none'}, trainer batch size ${info.batch_size}`,
    );
    return { batchSize: info.batch_size, maxTokenLen, envId: registered.envId };
  }

  private async post(): Promise<void> {
    const { envId } = await this.connection();
    const groups = this.pending.map((group) => ({ ...group, env_id: envId }));
    this.pending = [];
    this.pendingSequences = 0;
    const processed = await this.client.postGroups(groups);
    this.options.stats.add('posted_batches');
    this.options.stats.add('posted_groups', processed);
  }
}

/** The server packs whole groups into batches of exactly batch_size sequences. */
function checkBatching(groupSize: number, batchSize: number, warn: (message: string) => void): void {
  if (groupSize > batchSize) throw new UsageError(`--group-size ${groupSize} is larger than the trainer's batch size ${batchSize}: no batch can hold a group`);
  if ((groupSize & (groupSize - 1)) !== 0 || batchSize % groupSize !== 0) {
    warn(
      `--group-size ${groupSize} cannot fill the trainer's batches of ${batchSize} sequences: the server packs whole groups, ` +
        'and only a power of two dividing the batch size fills them (these groups may stay queued for good)',
    );
  }
}
