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

/** Anything that names a secret: the key as an ApiKey, or a secret value as it is (a header value, a key). */
export type SecretValue = string | ApiKey;

/**
 * The secrets of this process: the resolved API key and every secret header value, registered once
 * they are known (registerSecret). Every writer (records, stderr, --rejects, failures.jsonl, the
 * checkpoint, run.json, --stats-out) passes its text through redact, which removes these as well as
 * any it is given, so a writer cannot forget one.
 */
const registered = new Map<string, Secret>();

interface Secret {
  /** What replaces it: `[api key <fingerprint>]` or `[secret <fingerprint>]`. */
  readonly replacement: string;
  readonly forms: readonly string[];
}

/**
 * Makes every later redact remove `value` in all its forms. A value that cannot be a secret
 * (canBeSecret) is ignored. A header value is registered with kind 'secret'.
 */
export function registerSecret(value: SecretValue, kind: 'api key' | 'secret' = 'api key'): void {
  const raw = typeof value === 'string' ? value : value.reveal();
  if (!canBeSecret(raw) || registered.has(raw)) return;
  registered.set(raw, secretOf(raw, kind));
}

/**
 * Text with every form (keyForms) of every registered secret, and of `extra` (one secret or a list),
 * replaced by its fingerprint: for any text that is written anywhere, or that may echo a request (a
 * gateway that repeats the Authorization header, an error body that encodes it). A value that cannot
 * be a secret (canBeSecret) leaves the text as it is.
 */
export function redact(text: string, extra?: SecretValue | readonly SecretValue[]): string {
  const secrets = secretsFor(extra);
  // It runs on every record, tool result and message of a run, which almost never hold a secret: looking costs less than replacing.
  if (!secrets.some((secret) => secret.forms.some((form) => text.includes(form)))) return text;
  let out = text;
  for (const secret of secrets) for (const form of secret.forms) out = out.replaceAll(form, secret.replacement);
  return out;
}

/** Whether the text holds any form of a registered secret or of `extra`: exactly when redact would change it. */
export function holdsSecret(text: string, extra?: SecretValue | readonly SecretValue[]): boolean {
  return secretsFor(extra).some((secret) => secret.forms.some((form) => text.includes(form)));
}

function secretsFor(extra: SecretValue | readonly SecretValue[] | undefined): Secret[] {
  const secrets = [...registered.values()];
  const given: readonly SecretValue[] = extra === undefined ? [] : typeof extra === 'string' || extra instanceof ApiKey ? [extra] : extra;
  for (const value of given) {
    const raw = typeof value === 'string' ? value : value.reveal();
    if (!registered.has(raw) && canBeSecret(raw)) secrets.push(cachedSecret(raw));
  }
  return secrets;
}

/** The forms of the key last asked for without being registered: a caller redacts with one key throughout. */
let lastGiven: { readonly key: string; readonly secret: Secret } | undefined;

function cachedSecret(key: string): Secret {
  if (lastGiven?.key !== key) lastGiven = { key, secret: secretOf(key, 'api key') };
  return lastGiven.secret;
}

function secretOf(raw: string, kind: 'api key' | 'secret'): Secret {
  return { replacement: `[${kind} ${keyFingerprint(raw)}]`, forms: keyForms(raw) };
}

/**
 * The forms of a secret redact replaces, longest first so that a shorter form inside a longer one
 * does not leave the longer one's remainder; none for a value that cannot be a secret (canBeSecret).
 * A text holds the secret exactly when it holds one of them. What a tool or an endpoint could turn
 * the key into on its way out: as given, trimmed, URL-encoded, JSON-escaped, base64 and base64url at
 * each of the three alignments it can have inside a longer encoded text, hex in both cases, and
 * reversed.
 */
export function keyForms(key: string): string[] {
  if (!canBeSecret(key)) return [];
  const trimmed = key.trim();
  const bytes = Buffer.from(trimmed, 'utf8');
  const hex = bytes.toString('hex');
  const forms = new Set([
    key,
    trimmed,
    encodeURIComponent(key),
    encodeURIComponent(trimmed),
    JSON.stringify(key).slice(1, -1),
    ...base64Forms(bytes),
    hex,
    hex.toUpperCase(),
    [...trimmed].reverse().join(''),
  ]);
  return [...forms].filter((form) => form !== '').sort((a, b) => b.length - a.length);
}

/**
 * The part of the base64 (and base64url) text that encodes only the secret's bytes, whatever comes
 * before and after it: the secret preceded by 0, 1 or 2 bytes, the characters that also carry those
 * bytes' bits (or the next ones') cut off. Any base64 text that holds the secret's bytes holds one.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (const before of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64');
    const first = Math.ceil((8 * before) / 6);
    const end = Math.floor((8 * (before + bytes.length)) / 6);
    const inner = encoded.slice(first, end);
    forms.push(inner, inner.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}
