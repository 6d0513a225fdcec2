// The HTTP of OpenAI's batch API at the run's endpoint: upload an input file (POST /files, multipart,
// purpose batch), create a batch (POST /batches, completion window 24h), retrieve, list and cancel
// batches, and download a file's content (GET /files/{id}/content). Requests go through the
// endpoint's transport (its proxy, its --header values) with its key. A failure is retried as a chat
// completion is (a connection failure, 408, 409, 429 or 5xx, after its Retry-After; never a billing
// refusal); any other status is the APIError openai gives it, so a failed
// prompt is named as doctor names it (a refused key is `unauthorized`).
import { randomBytes } from 'node:crypto';
import { VERSION } from '@hermes-datagen/core';
import {
  DEFAULT_RETRY_AFTER_CAP_MS,
  endpointFetch,
  endpointUrl,
  headerValues,
  retrying,
  statusError,
  type Endpoint,
  type FetchLike,
} from '@hermes-datagen/core/endpoint';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai/core/error';
import type { Batch, BatchesPage } from 'openai/resources/batches';
import { BATCH_ENDPOINT } from './batchInput.js';

export type BatchObject = Pick<
  Batch,
  'id' | 'status' | 'input_file_id' | 'output_file_id' | 'error_file_id' | 'created_at' | 'in_progress_at' | 'completed_at' | 'request_counts' | 'errors'
>;

/** A batch's statuses once it will change no more. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** Retries of one request to the batch API before its failure is given up on. */
const RETRIES = 5;

export class BatchApi {
  private readonly fetch: FetchLike;
  private readonly headers: Readonly<Record<string, string>>;

  public constructor(private readonly endpoint: Pick<Endpoint, 'baseUrl' | 'apiKey' | 'headers' | 'proxy'>) {
    this.fetch = endpointFetch(endpoint);
    this.headers = {
      accept: 'application/json',
      'user-agent': `hermes-datagen/${VERSION}`,
      ...headerValues(endpoint.headers),
      authorization: `Bearer ${endpoint.apiKey.reveal()}`,
    };
  }

  /** Uploads an input file; its id. */
  public async uploadFile(filename: string, text: string, signal?: AbortSignal): Promise<string> {
    const boundary = `hermes-${randomBytes(12).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n`),
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: application/jsonl\r\n\r\n`),
      Buffer.from(text, 'utf8'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const file = await this.json<{ id?: unknown }>('POST', 'files', { body, type: `multipart/form-data; boundary=${boundary}`, signal });
    if (typeof file.id !== 'string') throw malformed('files', file);
    return file.id;
  }

  public async createBatch(inputFileId: string, metadata: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<BatchObject> {
    const body = JSON.stringify({ input_file_id: inputFileId, endpoint: BATCH_ENDPOINT, completion_window: '24h', metadata });
    return this.batch(await this.json('POST', 'batches', { body, type: 'application/json', signal }), 'batches');
  }

  public async retrieveBatch(id: string, signal?: AbortSignal): Promise<BatchObject> {
    return this.batch(await this.json('GET', `batches/${encodeURIComponent(id)}`, { signal }), 'batches/{id}');
  }

  public async cancelBatch(id: string, signal?: AbortSignal): Promise<BatchObject> {
    return this.batch(await this.json('POST', `batches/${encodeURIComponent(id)}/cancel`, { signal }), 'batches/{id}/cancel');
  }

  /** One page of the batches, newest first; `after` the last id of the page before. */
  public async listBatches(after?: string, signal?: AbortSignal): Promise<{ readonly data: BatchObject[]; readonly hasMore: boolean }> {
    const query = `batches?limit=100${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`;
    const page = await this.json<Partial<BatchesPage> & { data?: unknown; has_more?: unknown }>('GET', query, { signal });
    if (!Array.isArray(page.data)) throw malformed('batches', page);
    return { data: page.data.map((batch: unknown) => this.batch(batch, 'batches')), hasMore: page.has_more === true };
  }

  /** A file's content as text (an output or error file: JSONL). */
  public async fileContent(id: string, signal?: AbortSignal): Promise<string> {
    const response = await this.send('GET', `files/${encodeURIComponent(id)}/content`, { signal });
    return response.text();
  }

  private batch(value: unknown, path: string): BatchObject {
    const batch = value as Partial<BatchObject> | null;
    if (batch === null || typeof batch !== 'object' || typeof batch.id !== 'string' || typeof batch.status !== 'string') throw malformed(path, value);
    return batch as BatchObject;
  }

  private async json<T>(method: string, path: string, request: Request): Promise<T> {
    const response = await this.send(method, path, request);
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw malformed(path, text);
    }
  }

  /** One request, retried as the chat client retries (core retrying); a 2xx response. */
  private send(method: string, path: string, request: Request): Promise<Response> {
    const url = endpointUrl(this.endpoint.baseUrl, path);
    const headers = request.type === undefined ? this.headers : { ...this.headers, 'content-type': request.type };
    const init = { method, headers, ...(request.body === undefined ? {} : { body: request.body }), signal: request.signal };
    return retrying(
      async () => {
        if (request.signal?.aborted) throw new APIUserAbortError();
        let response: Response;
        try {
          response = await this.fetch(url, init);
        } catch (error) {
          if (request.signal?.aborted) throw new APIUserAbortError();
          throw new APIConnectionError({ message: undefined, cause: error instanceof Error ? error : new Error(String(error)) });
        }
        if (!response.ok) throw statusError(response.status, await response.text(), response.headers);
        return response;
      },
      { retries: RETRIES, retryAfterCapMs: DEFAULT_RETRY_AFTER_CAP_MS, signal: request.signal },
    );
  }
}

interface Request {
  readonly body?: string | Buffer | undefined;
  readonly type?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A 2xx whose body is not what the route returns: a 502 of the route named, as the chat client names one. */
function malformed(path: string, body: unknown): APIError {
  const shown = typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body).slice(0, 200);
  return APIError.generate(
    502,
    { error: { message: `the batch API's ${path} answered with no ${path === 'files' ? 'file' : 'batch'} object: ${shown}`, type: 'malformed_reply' } },
    undefined,
    new Headers(),
  );
}
