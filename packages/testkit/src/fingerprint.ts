// Hashing for the log and for deterministic ids and draws. The raw API key is never kept: the request log
// stores only a short SHA-256 fingerprint, so tests can scan everything the server holds for the key.
import { createHash } from 'node:crypto';

/** Headers that carry credentials; their values are replaced by a fingerprint in the request log. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key']);

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `sha256:` and the first 12 hex digits of the credential's SHA-256 (the `Bearer ` prefix is left out). */
export function fingerprint(credential: string): string {
  const token = credential.replace(/^Bearer\s+/i, '');
  return `sha256:${sha256Hex(token).slice(0, 12)}`;
}

/** A number in [0, 1) derived from the text: the same text always gives the same number. */
export function unitDraw(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

export function redactHeaders(headers: NodeJS.Dict<string | string[]>): Record<string, string> {
  const redacted: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    redacted[name] = CREDENTIAL_HEADERS.has(name) ? fingerprint(text) : text;
  }
  return redacted;
}
