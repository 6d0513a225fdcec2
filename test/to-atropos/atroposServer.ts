// A local stand-in for Atropos's API server (atroposlib/api/server.py at 296a0bc5), implementing the
// documented behaviour the exporter depends on (docs/atropos.md):
//   GET /info: {batch_size, max_token_len}, -1/-1 until a trainer POSTs /register;
//   POST /register: initialises state, unless a /scored_data* POST came first (the ordering bug:
//     the queue then exists, registration is skipped and /info stays -1 for good);
//   POST /scored_data_list: a list of ScoredData (gzip bodies accepted); tokens, masks and scores are
//     required (422 otherwise, so messages-only groups are rejected), every message needs role and
//     content; answers {"status": "received", "groups_processed": n};
//   GET /batch: whole groups adding up to exactly batch_size sequences, or {"batch": null}.
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
  /** Register a trainer (batch_size, max_token_len) when /info has been polled this many times. */
  registerAfterPolls?: { polls: number; batchSize: number; maxTokenLen: number };
  /** Answer the next N /scored_data_list posts with this status (and detail). */
  failures?: { count: number; status: number; detail?: string };
}

export class AtroposServer {
  public readonly posts: Post[] = [];
  public queue: Record<string, unknown>[] = [];
  public infoPolls = 0;
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
      if (plan && this.infoPolls === plan.polls) this.register(plan.batchSize, plan.maxTokenLen);
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
    if (req.method === 'GET' && req.url === '/batch') {
      if (this.batchSize === -1) return send(200, { status: 'error', message: 'Trainer not registered. Call /register first.', batch: [] });
      return send(200, { batch: this.takeBatch() });
    }
    send(404, { detail: 'Not Found' });
  }

  /** Whole groups, first come first served, adding up to exactly batch_size sequences. */
  private takeBatch(): Record<string, unknown>[] | null {
    const batch: Record<string, unknown>[] = [];
    let sequences = 0;
    for (const group of this.queue) {
      const size = (group['tokens'] as unknown[]).length;
      if (sequences + size > this.batchSize) continue;
      batch.push(group);
      sequences += size;
      if (sequences === this.batchSize) {
        this.queue = this.queue.filter((g) => !batch.includes(g));
        return batch;
      }
    }
    return null;
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
