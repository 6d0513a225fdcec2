// The check of a batch input file (OpenAI's JSONL: one `{"custom_id","method","url","body"}` request a line)
// that a batch makes while `validating`: any error fails the whole batch, naming the line, as OpenAI does.

export interface BatchLimits {
  /** Requests a file may hold (OpenAI: 50,000). */
  maxRequests: number;
  /** Bytes a file may hold (OpenAI: 200 MB). */
  maxBytes: number;
}

export const OPENAI_BATCH_LIMITS: BatchLimits = { maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 };

/** An entry of a failed batch's `errors.data`. */
export interface BatchError {
  code: string;
  message: string;
  param: string | null;
  /** The line of the input file, from 1; null for errors of the whole file. */
  line: number | null;
}

export interface BatchLine {
  line: number;
  customId: string;
  body: Record<string, unknown>;
}

export interface CheckedInput {
  /** The requests, in the file's order; empty when there are errors. */
  requests: BatchLine[];
  /** Every custom_id the file names (duplicates included), for the submission counts. */
  customIds: string[];
  errors: BatchError[];
}

/** A failed batch lists this many errors at most, so a file of bad lines costs no more than a few. */
const MAX_ERRORS = 100;

const DUPLICATE_MESSAGE =
  'The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each individual request in a batch.';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lineError(line: number, value: unknown, endpoint: string): BatchError | undefined {
  if (!isObject(value)) return { code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.', param: null, line };
  for (const param of ['custom_id', 'method', 'url', 'body']) {
    if (value[param] === undefined) return { code: 'missing_required_parameter', message: `Missing required parameter: '${param}'.`, param, line };
  }
  if (typeof value.custom_id !== 'string' || value.custom_id === '') {
    return { code: 'invalid_request', message: 'The custom_id must be a non-empty string.', param: 'custom_id', line };
  }
  if (value.method !== 'POST') {
    return { code: 'invalid_method', message: `The method ${JSON.stringify(value.method)} is not supported: only POST is.`, param: 'method', line };
  }
  if (value.url !== endpoint) {
    return { code: 'invalid_url', message: `The URL provided for this request does not match the batch endpoint (${endpoint}).`, param: 'url', line };
  }
  if (!isObject(value.body)) return { code: 'invalid_request', message: 'The body must be a JSON object.', param: 'body', line };
  return undefined;
}

/** The lines of the file: a newline ends a line, so the piece after the last one is no line when empty. */
function linesOf(content: Buffer): string[] {
  const lines = content.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function checkBatchInput(content: Buffer, endpoint: string, limits: BatchLimits): CheckedInput {
  if (content.length > limits.maxBytes) {
    const message = `The input file holds ${content.length} bytes; a batch takes ${limits.maxBytes} at most.`;
    return { requests: [], customIds: [], errors: [{ code: 'file_too_large', message, param: null, line: null }] };
  }
  const texts = linesOf(content);
  const requests: BatchLine[] = [];
  const customIds: string[] = [];
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  if (texts.length === 0) errors.push({ code: 'empty_file', message: 'The input file holds no requests.', param: null, line: null });
  if (texts.length > limits.maxRequests) {
    const message = `The input file holds ${texts.length} requests; a batch takes ${limits.maxRequests} at most.`;
    errors.push({ code: 'request_limit_exceeded', message, param: null, line: null });
  }
  texts.forEach((text, index) => {
    const line = index + 1;
    const value = parsed(text);
    const customId = isObject(value) && typeof value.custom_id === 'string' ? value.custom_id : undefined;
    if (customId !== undefined) customIds.push(customId);
    const error = lineError(line, value, endpoint) ?? (customId !== undefined && seen.has(customId) ? duplicate(line) : undefined);
    if (customId !== undefined) seen.add(customId);
    if (error !== undefined) {
      if (errors.length < MAX_ERRORS) errors.push(error);
      return;
    }
    requests.push({ line, customId: customId as string, body: (value as { body: Record<string, unknown> }).body });
  });
  return { requests: errors.length > 0 ? [] : requests, customIds, errors };
}

function duplicate(line: number): BatchError {
  return { code: 'duplicate_custom_id', message: DUPLICATE_MESSAGE, param: 'custom_id', line };
}
