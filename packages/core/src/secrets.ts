// The API key travels inside an ApiKey so that no serialisation can leak it: JSON, util.inspect and
// string conversion all show only its fingerprint. Records, logs and statistics carry the fingerprint,
// which is enough to tell that a resumed run uses a different key.
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';

/** The first 8 hex digits of the key's SHA-256: identifies a key without revealing it. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 8);
}

export class ApiKey {
  readonly #value: string;
  public readonly fingerprint: string;

  public constructor(value: string) {
    this.#value = value;
    this.fingerprint = keyFingerprint(value);
  }

  /** The key itself: only for the Authorization header and the environment of a child that calls the model. */
  public reveal(): string {
    return this.#value;
  }

  public toString(): string {
    return `[api key ${this.fingerprint}]`;
  }

  public toJSON(): string {
    return this.toString();
  }

  public [inspect.custom](): string {
    return this.toString();
  }
}

/** Shorter values are never taken for a secret: no real API key is this short. */
export const MIN_SECRET_LENGTH = 16;

/**
 * Keys local servers take in place of a real one (vLLM's EMPTY, llama.cpp's sk-no-key-required,
 * `none`, `x`…), spelt in any case. The short ones are covered by MIN_SECRET_LENGTH; these are the
 * long enough ones.
 */
const PLACEHOLDER_KEYS: ReadonlySet<string> = new Set([
  'sk-no-key-required',
  'your-api-key-here',
  'your_api_key_here',
  'sk-placeholder-key',
  'not-a-real-api-key',
]);

/**
 * Whether a value may be a secret worth hiding. A placeholder or a short value is not: substituting
 * one would rewrite every occurrence of an ordinary word (EMPTY, none, test, x) in training data and
 * reports, and protect nothing.
 */
export function canBeSecret(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length >= MIN_SECRET_LENGTH && !PLACEHOLDER_KEYS.has(trimmed.toLowerCase());
}

/**
 * The secrets a run redacts: its API key, and the values of the secret headers it sends
 * (endpointSecrets in endpoint.ts), each an ApiKey so that no serialisation shows it.
 */
export type Secrets = ApiKey | readonly ApiKey[];

/**
 * Text with every form of the key in it replaced by its fingerprint: for any error text that may echo
 * a request (a gateway that repeats the Authorization header, fetch rejecting an invalid header value).
 * A key that cannot be a secret (canBeSecret) leaves the text as it is. Given several secrets, each is
 * replaced.
 */
export function redact(text: string, key: string | Secrets | undefined): string {
  if (key === undefined) return text;
  if (Array.isArray(key)) {
    let out = text;
    for (const one of key as readonly ApiKey[]) out = redactOne(out, one);
    return out;
  }
  return redactOne(text, key as string | ApiKey);
}

function redactOne(text: string, key: string | ApiKey): string {
  const raw = typeof key === 'string' ? key : key.reveal();
  const forms = cachedKeyForms(raw);
  // It runs on every record and tool result of a run, which almost never hold the key: looking costs less than replacing.
  if (!forms.some((form) => text.includes(form))) return text;
  const replacement = `[api key ${typeof key === 'string' ? keyFingerprint(raw) : key.fingerprint}]`;
  let out = text;
  for (const form of forms) out = out.replaceAll(form, replacement);
  return out;
}

/** keyForms of the keys asked for: a run redacts with the same few secrets throughout. */
const formsCache = new Map<string, readonly string[]>();
const MAX_CACHED_KEYS = 16;

function cachedKeyForms(key: string): readonly string[] {
  let forms = formsCache.get(key);
  if (forms === undefined) {
    if (formsCache.size >= MAX_CACHED_KEYS) formsCache.clear();
    forms = keyForms(key);
    formsCache.set(key, forms);
  }
  return forms;
}

/**
 * The forms of a key redact replaces (as given, trimmed, URL-encoded, JSON-escaped), longest first so
 * that a shorter form inside a longer one does not leave the longer one's remainder; none for a key
 * that cannot be a secret (canBeSecret). A text holds the key exactly when it holds one of them.
 */
export function keyForms(key: string): string[] {
  if (!canBeSecret(key)) return [];
  const forms = new Set([key, key.trim(), encodeURIComponent(key), JSON.stringify(key).slice(1, -1)]);
  return [...forms].filter((form) => form !== '').sort((a, b) => b.length - a.length);
}
