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

/** An error in the shape OpenAI-compatible APIs use: `{"error":{"message","type","code"}}`. */
export function sendError(
  response: ServerResponse,
  status: number,
  error: { message: string; type: string; code: string | null },
  headers: HeaderMap = {},
): void {
  sendJson(response, status, { error: { ...error, param: null } }, headers);
}

/** The whole body as text. Read by its events: an async iterator over the stream costs several times their CPU per request. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
