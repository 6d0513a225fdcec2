// The key never leaves an ApiKey by accident, and redact() removes every form of it from text.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiKey, keyFingerprint, redact } from '@hermes-datagen/core';
import { canBeSecret } from '@hermes-datagen/core/internal/secrets.js';

const KEY = 'sk-hermes-FAKE-secrets-0123456789';

describe('keyFingerprint', () => {
  it('is the first 8 hex digits of the SHA-256 of the key', () => {
    // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(keyFingerprint('abc')).toBe('ba7816bf');
    expect(keyFingerprint(KEY)).toMatch(/^[0-9a-f]{8}$/);
    expect(keyFingerprint(KEY)).not.toBe(keyFingerprint(`${KEY}x`));
  });
});

describe('ApiKey', () => {
  const key = new ApiKey(KEY);

  it('reveals the key only when asked', () => {
    expect(key.reveal()).toBe(KEY);
    expect(key.fingerprint).toBe(keyFingerprint(KEY));
  });

  it('shows only its fingerprint through JSON, inspect, template strings and errors', () => {
    const shown = [
      JSON.stringify({ endpoint: { apiKey: key } }),
      inspect({ nested: { key } }, { depth: 5 }),
      `${key}`,
      String(key),
      new Error(`failed with ${key}`).message,
    ];
    for (const text of shown) {
      expect(text).not.toContain(KEY);
      expect(text).toContain(key.fingerprint);
    }
  });
});

describe('redact', () => {
  it('replaces the key, its URL-encoded and JSON-escaped forms', () => {
    const odd = 'sk-a/b+c"d-0123456789abcdef';
    const text = `Authorization: Bearer ${odd}; url ?key=${encodeURIComponent(odd)}; body {"k":${JSON.stringify(odd)}}`;
    const out = redact(text, odd);
    expect(out).not.toContain(odd);
    expect(out).not.toContain(encodeURIComponent(odd));
    expect(out).not.toContain(JSON.stringify(odd).slice(1, -1));
    expect(out).toContain(`[api key ${keyFingerprint(odd)}]`);
  });

  it('accepts an ApiKey and leaves text without the key alone', () => {
    expect(redact(`echo ${KEY}`, new ApiKey(KEY))).toBe(`echo [api key ${keyFingerprint(KEY)}]`);
    expect(redact('nothing secret', KEY)).toBe('nothing secret');
  });

  it('does nothing for an empty or missing key', () => {
    expect(redact('abc', '')).toBe('abc');
    expect(redact('abc', undefined)).toBe('abc');
  });

  it.each([['EMPTY'], ['none'], ['test'], ['x'], ['dummy'], ['sk-no-key-required'], ['SK-NO-KEY-REQUIRED'], ['short-key-123']])(
    'never substitutes %s, which cannot be a secret: the text stays as it is',
    (placeholder) => {
      const text = `prints ${placeholder} of the odd numbers; export ${placeholder.toLowerCase()} fix`;
      expect(canBeSecret(placeholder)).toBe(false);
      expect(redact(text, placeholder)).toBe(text);
      expect(redact(text, new ApiKey(placeholder))).toBe(text);
    },
  );

  it('takes a value of 16 characters or more that is no placeholder for a secret', () => {
    expect(canBeSecret('0123456789abcdef')).toBe(true);
    expect(canBeSecret('  0123456789abcde ')).toBe(false);
    expect(canBeSecret(KEY)).toBe(true);
  });

  it('removes a key that carried a trailing newline, with or without it', () => {
    const out = redact(`first ${KEY}\n and again ${KEY}`, `${KEY}\n`);
    expect(out).not.toContain(KEY);
  });
});
