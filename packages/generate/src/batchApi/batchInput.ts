// The files of OpenAI's batch API, as pure functions: the input lines of a round's requests, split
// into batches within the API's limits (requests and bytes per input file), and the lines of an
// output or error file read back into a reply or a failure per custom_id.
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { isPlainObject } from '@hermes-datagen/core';

/** The path every input line names, and the batch's `endpoint`. */
export const BATCH_ENDPOINT = '/v1/chat/completions';

/** OpenAI's limits on one batch: 50,000 requests, an input file of 200 MB. */
export interface BatchLimits {
  readonly maxRequests: number;
  readonly maxBytes: number;
}

export const OPENAI_BATCH_LIMITS: BatchLimits = { maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 };

/** One request of a round, as its input line carries it. */
export interface BatchRequest {
  readonly customId: string;
  readonly body: ChatCompletionCreateParamsNonStreaming;
}

/** One line of an input file, newline included. */
export function inputLine(request: BatchRequest): string {
  return `${JSON.stringify({ custom_id: request.customId, method: 'POST', url: BATCH_ENDPOINT, body: request.body })}\n`;
}

/** The requests of one batch and its input file's text. */
export interface BatchChunk<T extends BatchRequest = BatchRequest> {
  readonly requests: readonly T[];
  readonly text: string;
}

/**
 * The requests in order, cut into input files of at most `limits.maxRequests` lines and
 * `limits.maxBytes` bytes each. A single request over the byte limit cannot go in any batch: it is
 * returned in `oversized` (its prompt fails), never sent cut.
 */
export function splitBatches<T extends BatchRequest>(requests: readonly T[], limits: BatchLimits): { chunks: BatchChunk<T>[]; oversized: T[] } {
  const chunks: BatchChunk<T>[] = [];
  const oversized: T[] = [];
  let lines: string[] = [];
  let members: T[] = [];
  let bytes = 0;
  const close = (): void => {
    if (members.length === 0) return;
    chunks.push({ requests: members, text: lines.join('') });
    lines = [];
    members = [];
    bytes = 0;
  };
  for (const request of requests) {
    const line = inputLine(request);
    const size = Buffer.byteLength(line);
    if (size > limits.maxBytes) {
      oversized.push(request);
      continue;
    }
    if (members.length >= limits.maxRequests || bytes + size > limits.maxBytes) close();
    lines.push(line);
    members.push(request);
    bytes += size;
  }
  close();
  return { chunks, oversized };
}

/** What a batch answered for one custom_id. */
export type BatchOutcome =
  | { readonly customId: string; readonly ok: true; readonly reply: ChatCompletion }
  | { readonly customId: string; readonly ok: false; readonly error: string };

/**
 * The lines of an output or error file. A line with status 200 and a body is a reply; any other
 * (an error object, another status) is a failure that says why. A line that is not JSON or names
 * no custom_id is reported in `unreadable` by its line number (its request, unanswered, is sent again).
 */
export function readBatchOutput(text: string): { outcomes: BatchOutcome[]; unreadable: number[] } {
  const outcomes: BatchOutcome[] = [];
  const unreadable: number[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      unreadable.push(index + 1);
      continue;
    }
    if (!isPlainObject(value) || typeof value['custom_id'] !== 'string') {
      unreadable.push(index + 1);
      continue;
    }
    const customId = value['custom_id'];
    const response = value['response'];
    const status = isPlainObject(response) ? response['status_code'] : undefined;
    // What the agent loop reads as it reads a synchronous reply (modelReply.ts checks its shape).
    const body: unknown = isPlainObject(response) ? response['body'] : undefined;
    if (status === 200 && typeof body === 'object' && body !== null && !Array.isArray(body) && !isPlainObject(value['error'])) {
      outcomes.push({ customId, ok: true, reply: body as ChatCompletion });
      continue;
    }
    outcomes.push({ customId, ok: false, error: failureOf(value['error'], status, body) });
  }
  return { outcomes, unreadable };
}

/** A failed line's reason: its error's code and message, else the status and the body's error. */
function failureOf(error: unknown, status: unknown, body: unknown): string {
  const described = (value: unknown): string | undefined => {
    if (!isPlainObject(value)) return undefined;
    const code = typeof value['code'] === 'string' ? value['code'] : undefined;
    const message = typeof value['message'] === 'string' ? value['message'] : undefined;
    return [code, message].filter((part) => part !== undefined).join(': ') || undefined;
  };
  const inBody = isPlainObject(body) ? described(body['error']) : undefined;
  const where = typeof status === 'number' ? `status ${status}` : 'no response';
  return described(error) ?? (inBody === undefined ? where : `${where}, ${inBody}`);
}
