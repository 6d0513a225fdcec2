// A local stand-in for Atropos's API server (atroposlib/api/server.py at 296a0bc5), implementing the
// documented behaviour the exporter depends on (docs/atropos.md):
//   GET /info: {batch_size, max_token_len}, -1/-1 until a trainer POSTs /register;
//   POST /register: initialises state, unless a /scored_data* POST came first (the ordering bug:
//     the queue then exists, registration is skipped and /info stays -1 for good);
//   POST /scored_data_list: a list of ScoredData (gzip bodies accepted); tokens, masks and scores are
//     required (422 otherwise, so messages-only groups are rejected), every message needs role and
//     content; answers {"status": "received", "groups_processed": n};
//   POST /register-env: {"status": "wait for trainer to start"} until the trainer's first GET /batch, then
//     {"status": "success", "env_id": index, "wandb_name": "<desired_name>_<index>", ...};
//   GET /status: {current_step, queue_size} (queue_size in groups);
//   GET /batch: whole groups adding up to exactly batch_size sequences, or {"batch": null}; once any
//     registered environment sets min_batch_allocation, only registered environments' groups are packed
//     (a group without env_id never is), each such environment's minimum share first (and no batch at
//     all while one of them has nothing queued), as Atropos's grab_batch_with_minimum_allocations does.
// Faults for tests: failures (5xx) to answer before the next success, and registration after N polls.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface Post {
  encoding: string | undefined;
  groups: Record<string, unknown>[];
  /** Whether the trainer had registered when the post arrived. */
  afterRegister: boolean;
}

export interface AtroposServerOptions {
  /** Register a trainer (batch_size, max_token_len) when /info has been polled this many times; it starts asking for batches at once unless startAfterEnvPolls says otherwise. */
  registerAfterPolls?: { polls: number; batchSize: number; maxTokenLen: number };
  /** The trainer's first GET /batch comes after this many POST /register-env. */
  startAfterEnvPolls?: number;
  /** Answer the next N /scored_data_list posts with this status (and detail). */
  failures?: { count: number; status: number; detail?: string };
}

export interface RegisteredEnv {
  max_token_length: number;
  desired_name: string;
  weight: number;
  group_size: number;
  min_batch_allocation?: number | null;
}

export class AtroposServer {
  public readonly posts: Post[] = [];
  public queue: Record<string, unknown>[] = [];
  public readonly envs: RegisteredEnv[] = [];
  public infoPolls = 0;
  public envPolls = 0;
  public started = false;
  private step = 0;
  private batchSize = -1;
  private maxTokenLen = -1;
  private queueExists = false;
  private server: Server | undefined;

  public constructor(private readonly options: AtroposServerOptions = {}) {}

  public get url(): string {
    const address = this.server?.address();
    if (!address || typeof address === 'string') throw new Error('the Atropos test server is not listening (call start() first)');
    return `http://127.0.0.1:${address.port}`;
  }

  public async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  public async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** What a trainer's POST /register does. */
  public register(batchSize: number, maxTokenLen: number): void {
    if (this.queueExists) return;
    this.queueExists = true;
    this.batchSize = batchSize;
    this.maxTokenLen = maxTokenLen;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'GET' && req.url === '/info') {
      this.infoPolls += 1;
      const plan = this.options.registerAfterPolls;
      if (plan && this.infoPolls === plan.polls) {
        this.register(plan.batchSize, plan.maxTokenLen);
        if (this.options.startAfterEnvPolls === undefined) this.started = true;
      }
      return send(200, { batch_size: this.batchSize, max_token_len: this.maxTokenLen });
    }
    if (req.method === 'POST' && req.url === '/register') {
      const { batch_size: batchSize, max_token_len: maxTokenLen } = JSON.parse(body.toString('utf8')) as { batch_size: number; max_token_len: number };
      this.register(batchSize, maxTokenLen);
      return send(200, { uuid: 1 });
    }
    if (req.method === 'POST' && req.url === '/scored_data_list') {
      const failures = this.options.failures;
      if (failures && failures.count > 0) {
        failures.count -= 1;
        return send(failures.status, { detail: failures.detail ?? 'Internal Server Error' });
      }
      let groups: unknown;
      try {
        groups = JSON.parse(body.toString('utf8'));
      } catch {
        return send(422, { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }] });
      }
      const problem = validateList(groups);
      if (problem) return send(422, { detail: [problem] });
      const list = groups as Record<string, unknown>[];
      this.posts.push({ encoding: req.headers['content-encoding'], groups: list, afterRegister: this.batchSize !== -1 });
      // Any scored data creates the queue: a later /register is skipped (the ordering bug).
      this.queueExists = true;
      this.queue.push(...list);
      return send(200, { status: 'received', groups_processed: list.length });
    }
    if (req.method === 'POST' && req.url === '/register-env') {
      this.envPolls += 1;
      if (this.options.startAfterEnvPolls !== undefined && this.envPolls > this.options.startAfterEnvPolls) this.started = true;
      const env = JSON.parse(body.toString('utf8')) as RegisteredEnv;
      for (const field of ['max_token_length', 'desired_name', 'weight', 'group_size'] as const) {
        if (!(field in env)) return send(422, { detail: [{ type: 'missing', loc: ['body', field], msg: 'Field required' }] });
      }
      return send(200, this.registerEnv(env));
    }
    if (req.method === 'GET' && req.url === '/status') return send(200, { current_step: this.step, queue_size: this.queue.length });
    if (req.method === 'GET' && req.url === '/batch') {
      if (this.batchSize === -1) return send(200, { status: 'error', message: 'Trainer not registered. Call /register first.', batch: [] });
      this.started = true;
      const batch = this.takeBatch();
      if (batch) this.step += 1;
      return send(200, { batch });
    }
    send(404, { detail: 'Not Found' });
  }

  /** What an environment's POST /register-env does (also for environments a test registers directly). */
  public registerEnv(env: RegisteredEnv): Record<string, unknown> {
    if (!this.started) return { status: 'wait for trainer to start' };
    this.envs.push(env);
    const id = this.envs.length - 1;
    return {
      status: 'success',
      env_id: id,
      wandb_name: `${env.desired_name}_${id}`,
      checkpoint_dir: '',
      starting_step: this.step,
      checkpoint_interval: -1,
      num_steps: -1,
    };
  }

  /** Whole groups adding up to exactly batch_size sequences, or null. */
  private takeBatch(): Record<string, unknown>[] | null {
    const minimums = new Map<number, number>();
    for (const [id, env] of this.envs.entries()) {
      if (env.min_batch_allocation !== undefined && env.min_batch_allocation !== null) minimums.set(id, Math.floor(this.batchSize * env.min_batch_allocation));
    }
    const size = (group: Record<string, unknown>) => (group['tokens'] as unknown[]).length;
    const envOf = (group: Record<string, unknown>) => (typeof group['env_id'] === 'number' ? group['env_id'] : undefined);
    // With minimum allocations only registered environments' groups can be packed.
    const candidates = minimums.size === 0 ? this.queue : this.queue.filter((group) => envOf(group) !== undefined);
    const batch: Record<string, unknown>[] = [];
    let sequences = 0;
    const take = (group: Record<string, unknown>) => {
      if (batch.includes(group) || sequences + size(group) > this.batchSize) return;
      batch.push(group);
      sequences += size(group);
    };
    for (const [id, minimum] of minimums) {
      if (minimum <= 0) continue;
      const own = candidates.filter((group) => envOf(group) === id);
      if (own.length === 0) return null;
      let taken = 0;
      for (const group of own) {
        if (taken >= minimum) break;
        const before = sequences;
        take(group);
        taken += sequences - before;
      }
    }
    for (const group of candidates) {
      if (sequences === this.batchSize) break;
      take(group);
    }
    if (sequences !== this.batchSize) return null;
    this.queue = this.queue.filter((g) => !batch.includes(g));
    return batch;
  }
}

function validateList(value: unknown): { type: string; loc: (string | number)[]; msg: string } | null {
  if (!Array.isArray(value)) return { type: 'list_type', loc: ['body'], msg: 'Input should be a valid list' };
  for (const [i, group] of value.entries()) {
    if (typeof group !== 'object' || group === null) return { type: 'model_type', loc: ['body', i], msg: 'Input should be an object' };
    for (const field of ['tokens', 'masks', 'scores']) {
      if (!(field in group)) return { type: 'missing', loc: ['body', i, field], msg: 'Field required' };
    }
    const messages = (group as { messages?: unknown }).messages;
    if (messages !== undefined && messages !== null) {
      for (const chat of messages as unknown[][]) {
        for (const message of chat) {
          if (typeof message !== 'object' || message === null || !('role' in message) || !('content' in message)) {
            return { type: 'value_error', loc: ['body', i, 'messages'], msg: "Value error, Each message must have 'role' and 'content'" };
          }
        }
      }
    }
  }
  return null;
}
