// Small node:http helpers shared by the server and the fault responses.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type HeaderMap = Record<string, string>;

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: HeaderMap = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export interface ApiError {
  message: string;
  type: string;
  code: string | null;
  param?: string | null;
}

/** An error in the shape OpenAI-compatible APIs use: `{"error":{"message","type","param","code"}}`. */
export function errorBody(error: ApiError): { error: Required<ApiError> } {
  return { error: { param: null, ...error } };
}

export function sendError(response: ServerResponse, status: number, error: ApiError, headers: HeaderMap = {}): void {
  sendJson(response, status, errorBody(error), headers);
}

/** The whole body. Read by its events: an async iterator over the stream costs several times their CPU per request. */
export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
