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

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
