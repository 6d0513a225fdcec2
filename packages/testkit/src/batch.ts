// OpenAI's batch API, served offline: `/files` (upload, metadata, content, delete) and `/batches` (create,
// retrieve, cancel, list). A batch validates its input file, waits its completion delay `in_progress`, then
// answers every line with the same rules as the synchronous `/chat/completions` (answer.ts) and writes the
// output and error files. Field names follow the openai SDK's Batch and FileObject types.
import type { ServerResponse } from 'node:http';
import type { ChatAnswer, ChatAnswerer } from './answer.js';
import { sha256Hex, unitDraw } from './fingerprint.js';
import { sendError, sendJson, type ApiError } from './http.js';
import { checkBatchInput, OPENAI_BATCH_LIMITS, type BatchError, type BatchLimits, type BatchLine, type CheckedInput } from './batchInput.js';

export interface BatchOptions {
  /** How long a batch stays `in_progress` before its lines are answered. Default 50 ms. */
  delayMs?: number;
  /** The share of lines (0-1) a batch fails to run (error lines without a response); seeded draws. Default 0. */
  failShare?: number;
  /** The share of batches (0-1) that expire; seeded draws. Default 0. */
  expireShare?: number;
  /** The batches that expire whatever the share: their numbers in creation order, from 1. */
  expireNth?: readonly number[];
  /** Requests an input file may hold. Default 50,000 (OpenAI's). */
  maxRequests?: number;
  /** Bytes an input file may hold. Default 200 MB (OpenAI's). */
  maxBytes?: number;
}

export interface BatchStats {
  filesUploaded: number;
  batchesCreated: number;
  batchesCancelled: number;
  batchesExpired: number;
  /** Batches that failed validation. */
  batchesFailed: number;
  /** Lines answered by the chat rules (not those failed by the share, expired or cancelled). */
  requestsAnswered: number;
  /** How many times each custom_id came in a batch's input file, over all batches. */
  readonly submissions: Map<string, number>;
}

export const DEFAULT_BATCH_DELAY_MS = 50;

export const BATCH_ENDPOINT = '/v1/chat/completions';

const COMPLETION_WINDOW_S = 24 * 60 * 60;

const FILE_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'];

type Status = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

const TERMINAL: readonly Status[] = ['failed', 'completed', 'expired', 'cancelled'];

interface StoredFile {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  status: 'processed';
  expires_at: number | null;
  status_details: null;
  content: Buffer;
}

interface StoredBatch {
  id: string;
  object: 'batch';
  endpoint: string;
  errors: { object: 'list'; data: BatchError[] } | null;
  input_file_id: string;
  completion_window: string;
  status: Status;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  /** The tokens of the lines answered, summed from their completions' usage (the SDK's BatchUsage). */
  usage: BatchUsage;
  metadata: Record<string, string> | null;
}

interface BatchUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** A line of an output or error file. */
interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: unknown } | null;
  error: { code: string; message: string } | null;
}

export interface BatchApiParts {
  answerer: ChatAnswerer;
  /** The next request's number among the chat-completion requests received (fault rules' `nth`). */
  nextNth: () => number;
  /** Resolves after ms; rejects when the server closes. */
  wait: (ms: number) => Promise<void>;
  seed: number;
}

const nowS = (): number => Math.floor(Date.now() / 1000);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string, param: string | null, code: string | null = null): ApiError {
  return { message, type: 'invalid_request_error', param, code };
}

export class BatchApi {
  public readonly stats: BatchStats = {
    filesUploaded: 0,
    batchesCreated: 0,
    batchesCancelled: 0,
    batchesExpired: 0,
    batchesFailed: 0,
    requestsAnswered: 0,
    submissions: new Map(),
  };

  private readonly files = new Map<string, StoredFile>();
  /** In creation order. */
  private readonly batches = new Map<string, StoredBatch>();
  /** Per batch in progress: ends its wait, so a cancel takes effect without waiting out the delay. */
  private readonly wakers = new Map<string, () => void>();
  private readonly limits: BatchLimits;
  private readonly delayMs: number;
  private filesMade = 0;

  public constructor(
    private readonly parts: BatchApiParts,
    private readonly options: BatchOptions = {},
  ) {
    this.limits = { maxRequests: options.maxRequests ?? OPENAI_BATCH_LIMITS.maxRequests, maxBytes: options.maxBytes ?? OPENAI_BATCH_LIMITS.maxBytes };
    this.delayMs = options.delayMs ?? DEFAULT_BATCH_DELAY_MS;
  }

  /**
   * Answers a request under the base path (`route` is its method and the path below the base); false when
   * the path is none of the batch API's.
   */
  public async handle(route: string, query: URLSearchParams, contentType: string | undefined, body: Buffer, response: ServerResponse): Promise<boolean> {
    const [method, path] = route.split(' ') as [string, string];
    const parts = path.split('/').filter((part) => part !== '');
    if (parts[0] === 'files') return this.handleFiles(method, parts.slice(1), contentType, body, response);
    if (parts[0] === 'batches') return this.handleBatches(method, parts.slice(1), query, body, response);
    return false;
  }

  private async handleFiles(method: string, rest: string[], contentType: string | undefined, body: Buffer, response: ServerResponse): Promise<boolean> {
    if (rest.length === 0 && method === 'POST') {
      await this.upload(contentType, body, response);
      return true;
    }
    if (rest.length === 0 && method === 'GET') {
      const data = [...this.files.values()].reverse().map(fileObject);
      sendJson(response, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
      return true;
    }
    const id = rest[0] ?? '';
    const file = this.files.get(id);
    const known = (rest.length === 1 && (method === 'GET' || method === 'DELETE')) || (rest.length === 2 && rest[1] === 'content' && method === 'GET');
    if (!known) return false;
    if (file === undefined) {
      sendError(response, 404, invalid(`No such File object: ${id}`, 'id'));
      return true;
    }
    if (method === 'DELETE') {
      this.files.delete(id);
      sendJson(response, 200, { id, object: 'file', deleted: true });
    } else if (rest.length === 2) {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.content.length });
      response.end(file.content);
    } else {
      sendJson(response, 200, fileObject(file));
    }
    return true;
  }

  private async upload(contentType: string | undefined, body: Buffer, response: ServerResponse): Promise<void> {
    if (contentType === undefined || !contentType.toLowerCase().startsWith('multipart/form-data')) {
      sendError(response, 400, invalid('Uploads are multipart/form-data with the fields "purpose" and "file".', null));
      return;
    }
    let form: FormData;
    try {
      form = await new Request('http://hermes-testkit/files', { method: 'POST', headers: { 'content-type': contentType }, body }).formData();
    } catch (error) {
      sendError(response, 400, invalid(`The multipart body cannot be read: ${(error as Error).message}`, null));
      return;
    }
    const purpose = form.get('purpose');
    const file = form.get('file');
    if (typeof purpose !== 'string') {
      sendError(response, 400, invalid("Missing required parameter: 'purpose'.", 'purpose', 'missing_required_parameter'));
      return;
    }
    if (!FILE_PURPOSES.includes(purpose)) {
      sendError(response, 400, invalid(`Invalid value for 'purpose': '${purpose}'; one of ${FILE_PURPOSES.join(', ')}.`, 'purpose', 'invalid_value'));
      return;
    }
    if (file === null || typeof file === 'string') {
      sendError(response, 400, invalid("Missing required parameter: 'file' (a file part).", 'file', 'missing_required_parameter'));
      return;
    }
    const stored = this.storeFile(file.name || 'upload', purpose, Buffer.from(await file.arrayBuffer()));
    this.stats.filesUploaded += 1;
    sendJson(response, 200, fileObject(stored));
  }

  private storeFile(filename: string, purpose: string, content: Buffer): StoredFile {
    const id = `file-${sha256Hex(`${this.parts.seed}:file:${++this.filesMade}`).slice(0, 24)}`;
    const created = nowS();
    const file: StoredFile = {
      id,
      object: 'file',
      bytes: content.length,
      created_at: created,
      filename,
      purpose,
      status: 'processed',
      // Batch files expire after 30 days by default, as OpenAI's do.
      expires_at: purpose.startsWith('batch') ? created + 30 * COMPLETION_WINDOW_S : null,
      status_details: null,
      content,
    };
    this.files.set(id, file);
    return file;
  }

  private handleBatches(method: string, rest: string[], query: URLSearchParams, body: Buffer, response: ServerResponse): boolean {
    if (rest.length === 0 && method === 'POST') this.create(body, response);
    else if (rest.length === 0 && method === 'GET') this.list(query, response);
    else if (rest.length === 1 && method === 'GET') this.withBatch(rest[0] ?? '', response, (batch) => sendJson(response, 200, batch));
    else if (rest.length === 2 && rest[1] === 'cancel' && method === 'POST') this.withBatch(rest[0] ?? '', response, (batch) => this.cancel(batch, response));
    else return false;
    return true;
  }

  private withBatch(id: string, response: ServerResponse, then: (batch: StoredBatch) => void): void {
    const batch = this.batches.get(id);
    if (batch === undefined) sendError(response, 404, invalid(`No batch found with id '${id}'.`, 'batch_id'));
    else then(batch);
  }

  private create(body: Buffer, response: ServerResponse): void {
    let params: unknown;
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      sendError(response, 400, invalid('The request body is not valid JSON.', null));
      return;
    }
    const problem = createProblem(params);
    if (problem !== undefined) {
      sendError(response, 400, problem);
      return;
    }
    const { input_file_id: fileId, endpoint, completion_window: window, metadata } = params as Record<string, unknown>;
    const file = this.files.get(fileId as string);
    if (file === undefined) {
      sendError(response, 404, invalid(`No such File object: ${String(fileId)}`, 'input_file_id'));
      return;
    }
    if (file.purpose !== 'batch') {
      sendError(
        response,
        400,
        invalid(`The input file ${file.id} was uploaded with purpose '${file.purpose}'; a batch needs purpose 'batch'.`, 'input_file_id'),
      );
      return;
    }
    const nth = ++this.stats.batchesCreated;
    const created = nowS();
    const batch: StoredBatch = {
      id: `batch_${sha256Hex(`${this.parts.seed}:batch:${nth}`).slice(0, 24)}`,
      object: 'batch',
      endpoint: endpoint as string,
      errors: null,
      input_file_id: file.id,
      completion_window: window as string,
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      created_at: created,
      in_progress_at: null,
      expires_at: created + COMPLETION_WINDOW_S,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
      usage: { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
      metadata: (metadata as Record<string, string> | null | undefined) ?? null,
    };
    this.batches.set(batch.id, batch);
    // The file is read as the batch is made, so the submissions are counted by the time the client has its answer.
    const checked = checkBatchInput(file.content, batch.endpoint, this.limits);
    const occurrences = checked.customIds.map((customId) => {
      const before = this.stats.submissions.get(customId) ?? 0;
      this.stats.submissions.set(customId, before + 1);
      return before;
    });
    sendJson(response, 200, batch);
    this.run(batch, checked, occurrences, nth).catch(() => {
      // Only the server's close stops a batch on its way: nothing is left to answer.
    });
  }

  private list(query: URLSearchParams, response: ServerResponse): void {
    const limit = Number(query.get('limit') ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      sendError(response, 400, invalid(`Invalid 'limit': ${query.get('limit')}; an integer from 1 to 100.`, 'limit', 'invalid_value'));
      return;
    }
    const newestFirst = [...this.batches.values()].reverse();
    const after = query.get('after');
    const start = after === null ? 0 : newestFirst.findIndex((batch) => batch.id === after) + 1;
    if (after !== null && start === 0) {
      sendError(response, 400, invalid(`Invalid 'after': no batch has the id '${after}'.`, 'after', 'invalid_value'));
      return;
    }
    const data = newestFirst.slice(start, start + limit);
    sendJson(response, 200, {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: start + limit < newestFirst.length,
    });
  }

  private cancel(batch: StoredBatch, response: ServerResponse): void {
    if (TERMINAL.includes(batch.status)) {
      sendError(response, 409, invalid(`Cannot cancel a batch with status '${batch.status}'.`, null));
      return;
    }
    if (batch.status !== 'cancelling') {
      batch.status = 'cancelling';
      batch.cancelling_at = nowS();
      this.wakers.get(batch.id)?.();
    }
    sendJson(response, 200, batch);
  }

  /** validating, then in_progress for the delay, then the lines answered (or expired, or cancelled). */
  /** `occurrences`: how often each of the file's custom_ids came before it. */
  private async run(batch: StoredBatch, checked: CheckedInput, occurrences: readonly number[], nth: number): Promise<void> {
    // The create answer goes out while the batch is validating.
    await this.parts.wait(0);
    const cancelledLines = (): OutputLine[] => checked.requests.map((request) => notRun(batch, request, 'batch_cancelled'));
    if (cancelRequested(batch)) return this.finish(batch, 'cancelled', cancelledLines());
    if (checked.errors.length > 0) {
      batch.status = 'failed';
      batch.failed_at = nowS();
      batch.errors = { object: 'list', data: checked.errors };
      this.stats.batchesFailed += 1;
      return;
    }
    batch.status = 'in_progress';
    batch.in_progress_at = nowS();
    batch.request_counts.total = checked.requests.length;
    const cancelled = new Promise<void>((resolve) => this.wakers.set(batch.id, resolve));
    try {
      await Promise.race([this.parts.wait(this.delayMs), cancelled]);
    } finally {
      this.wakers.delete(batch.id);
    }
    if (cancelRequested(batch)) return this.finish(batch, 'cancelled', cancelledLines());
    // An expired batch answered the first half of its requests in time; the rest never ran.
    const expired = this.expires(nth);
    const answered = expired ? Math.floor(checked.requests.length / 2) : checked.requests.length;
    // With no duplicates in a valid file, the occurrences line up with its requests.
    const lines = checked.requests.map((request, index) =>
      index < answered ? this.lineFor(batch, request, occurrences[index] ?? 0) : notRun(batch, request, 'batch_expired'),
    );
    return this.finish(batch, expired ? 'expired' : 'completed', lines);
  }

  private expires(nth: number): boolean {
    if (this.options.expireNth?.includes(nth) === true) return true;
    const share = this.options.expireShare ?? 0;
    return share > 0 && unitDraw(`${this.parts.seed}:batch-expire:${nth}`) < share;
  }

  /** The line's answer; a failed share of lines is not run, drawn by custom_id and how often it came before. */
  private lineFor(batch: StoredBatch, request: BatchLine, occurrence: number): OutputLine {
    const share = this.options.failShare ?? 0;
    if (share > 0 && unitDraw(`${this.parts.seed}:batch-fail:${request.customId}:${occurrence}`) < share) return notRun(batch, request, 'batch_failed');
    this.stats.requestsAnswered += 1;
    return outputLine(batch, request, this.parts.answerer.answer(JSON.stringify(request.body), this.parts.nextNth(), undefined));
  }

  private finish(batch: StoredBatch, status: 'completed' | 'expired' | 'cancelled', lines: OutputLine[]): void {
    const now = nowS();
    batch.finalizing_at = now;
    const answeredOk = (line: OutputLine): boolean => line.response !== null && line.response.status_code < 400;
    const succeeded = lines.filter(answeredOk);
    const failed = lines.filter((line) => !answeredOk(line));
    const jsonl = (entries: OutputLine[]): Buffer => Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    if (succeeded.length > 0) batch.output_file_id = this.storeFile(`${batch.id}_output.jsonl`, 'batch_output', jsonl(succeeded)).id;
    if (failed.length > 0) batch.error_file_id = this.storeFile(`${batch.id}_error.jsonl`, 'batch_output', jsonl(failed)).id;
    batch.request_counts.completed = succeeded.length;
    for (const line of succeeded) addUsage(batch.usage, line.response?.body);
    batch.request_counts.failed = failed.length;
    batch.status = status;
    if (status === 'completed') batch.completed_at = now;
    if (status === 'expired') {
      batch.expired_at = now;
      this.stats.batchesExpired += 1;
    }
    if (status === 'cancelled') {
      batch.cancelled_at = now;
      this.stats.batchesCancelled += 1;
    }
  }
}

function addUsage(total: BatchUsage, completion: unknown): void {
  const usage = isObject(completion) && isObject(completion.usage) ? completion.usage : {};
  const count = (value: unknown): number => (typeof value === 'number' ? value : 0);
  total.input_tokens += count(usage.prompt_tokens);
  total.input_tokens_details.cached_tokens += count(isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : 0);
  total.output_tokens += count(usage.completion_tokens);
  total.total_tokens += count(usage.total_tokens);
}

/** A function, not a comparison in place: a cancel arrives while run() awaits, which narrowing cannot see. */
function cancelRequested(batch: StoredBatch): boolean {
  return batch.status === 'cancelling';
}

function fileObject(file: StoredFile): Omit<StoredFile, 'content'> {
  const { content: _content, ...object } = file;
  return object;
}

function createProblem(params: unknown): ApiError | undefined {
  if (!isObject(params)) return invalid('The request body must be a JSON object.', null);
  for (const name of ['input_file_id', 'endpoint', 'completion_window']) {
    if (typeof params[name] !== 'string') return invalid(`Missing required parameter: '${name}'.`, name, 'missing_required_parameter');
  }
  if (params.endpoint !== BATCH_ENDPOINT) {
    return invalid(`Invalid value for 'endpoint': '${String(params.endpoint)}'; hermes-testkit serves ${BATCH_ENDPOINT} only.`, 'endpoint', 'invalid_value');
  }
  if (params.completion_window !== '24h') {
    return invalid(
      `Invalid value for 'completion_window': '${String(params.completion_window)}'; only '24h' is supported.`,
      'completion_window',
      'invalid_value',
    );
  }
  const { metadata } = params;
  if (metadata !== undefined && metadata !== null && !(isObject(metadata) && Object.values(metadata).every((value) => typeof value === 'string'))) {
    return invalid("Invalid 'metadata': an object of string values.", 'metadata', 'invalid_value');
  }
  return undefined;
}

function lineIds(batch: StoredBatch, request: BatchLine): { id: string; request_id: string } {
  const digest = sha256Hex(`${batch.id}:${request.line}`);
  return { id: `batch_req_${digest.slice(0, 24)}`, request_id: `req_${digest.slice(24, 56)}` };
}

const NOT_RUN_MESSAGES: Record<string, string> = {
  batch_failed: 'The batch could not run this request (hermes-testkit: the configured share of failed lines).',
  batch_expired: 'This request could not be executed before the completion window expired.',
  batch_cancelled: 'This request was not executed because the batch was cancelled.',
};

function notRun(batch: StoredBatch, request: BatchLine, code: keyof typeof NOT_RUN_MESSAGES): OutputLine {
  return { id: lineIds(batch, request).id, custom_id: request.customId, response: null, error: { code, message: NOT_RUN_MESSAGES[code] ?? code } };
}

/**
 * A chat answer as a line: a completion (200) or an HTTP error (its status and body) in `response`. The
 * faults of the transport (a dropped connection, a cut body, no answer) have no wire in a batch: the line
 * failed to run.
 */
function outputLine(batch: StoredBatch, request: BatchLine, answer: ChatAnswer): OutputLine {
  const { id, request_id } = lineIds(batch, request);
  const line = (status_code: number, body: unknown): OutputLine => ({
    id,
    custom_id: request.customId,
    response: { status_code, request_id, body },
    error: null,
  });
  if (answer.kind === 'response') return line(answer.status, answer.body);
  if (answer.kind === 'completion' && answer.cut === undefined) return line(200, answer.completion);
  const message = answer.kind === 'silence' ? 'The request timed out.' : 'The server had an error while processing your request.';
  return { id, custom_id: request.customId, response: null, error: { code: answer.kind === 'silence' ? 'request_timeout' : 'server_error', message } };
}
