// keyForms: what hermes-verify looks for instead of redacting each text; a text holds one of the forms
// exactly when redact would change it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { holdsSecret, JsonlWriter, keyFingerprint, keyForms, Logger, redact, writeFileAtomic, writeJsonAtomic } from '@hermes-datagen/core';
import { registerSecret } from '@hermes-datagen/core/internal/secrets.js';

const KEYS = ['sk-test-0123456789abcdef', '  sk-padded-0123456789abcdef  ', 'key with "quotes" and \\ / ü 0123', 'short', 'sk-no-key-required', 'a'.repeat(15)];

describe('keyForms', () => {
  it('are longest first, and empty for a key that cannot be a secret', () => {
    const forms = keyForms('key with "quotes" and \\ / ü 0123');
    expect(forms).toEqual([...forms].sort((a, b) => b.length - a.length));
    expect(forms).toContain('key with \\"quotes\\" and \\\\ / ü 0123');
    expect(forms).toContain(encodeURIComponent('key with "quotes" and \\ / ü 0123'));
    expect(keyForms('short')).toEqual([]);
    expect(keyForms('SK-NO-KEY-REQUIRED')).toEqual([]);
  });

  it('a text holds a form exactly when redact changes it', () => {
    for (const key of KEYS) {
      const texts = ['', 'nothing here', key, `before ${key} after`, JSON.stringify({ k: key }), `url?k=${encodeURIComponent(key)}`, key.slice(1), key.trim()];
      for (const text of texts)
        expect(
          keyForms(key).some((form) => text.includes(form)),
          `${key} in ${text}`,
        ).toBe(redact(text, key) !== text);
    }
  });
});

describe('keyForms cover what a tool or an endpoint can turn the key into', () => {
  const key = 'sk-live-9f8e7d6c5b4a3f2e1d0c';
  const encodings: [string, (surrounding: string) => string][] = [
    ['base64', (text) => Buffer.from(text).toString('base64')],
    ['base64url', (text) => Buffer.from(text).toString('base64url')],
    ['hex', (text) => Buffer.from(text).toString('hex')],
    ['HEX', (text) => Buffer.from(text).toString('hex').toUpperCase()],
    ['reversed', (text) => [...text].reverse().join('')],
  ];
  it.each(encodings)('%s of the key inside any surrounding text, at every alignment', (_name, encode) => {
    for (const before of ['', 'a', 'ab', 'abc', 'Authorization: Bearer ']) {
      for (const after of ['', 'x', 'xy', '"}\n']) {
        const text = `prefix ${encode(`${before}${key}${after}`)} suffix`;
        const out = redact(text, key);
        expect(out, `${before}|${after}`).not.toBe(text);
        expect(keyForms(key).some((form) => text.includes(form))).toBe(true);
      }
    }
  });

  it('none of them is in the encoding of text without the key', () => {
    const other = 'sk-live-0000000000000000000000';
    for (const [, encode] of encodings) expect(redact(encode(`some ${other} text`), key)).toBe(encode(`some ${other} text`));
  });
});

describe('registered secrets', () => {
  it('are removed by every redact, with or without a key given, and a header value is named a secret', () => {
    const header = 'hdr-secret-value-5566778899';
    registerSecret(header, 'secret');
    registerSecret('short-one');
    expect(redact('a short-one here')).toBe('a short-one here');
    const text = `x-auth: ${Buffer.from(header).toString('base64')} and ${header}`;
    expect(redact(text)).toBe(`x-auth: [secret ${keyFingerprint(header)}] and [secret ${keyFingerprint(header)}]`);
    expect(holdsSecret(text)).toBe(true);
    expect(holdsSecret('nothing here')).toBe(false);
    expect(redact(`${header} sk-test-0123456789abcdef`, 'sk-test-0123456789abcdef')).not.toMatch(/hdr-secret|sk-test/);
  });
});

describe('every writer of core removes the registered secrets', () => {
  const secret = 'writer-secret-0123456789abc';
  registerSecret(secret);
  const encoded = Buffer.from(`u:${secret}`).toString('base64');

  it('stderr messages, JSON files and JSONL objects (rejects, failure records)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redact-writers-'));
    try {
      let stderr = '';
      const stream = new Writable({
        write: (chunk: Buffer, _enc, done) => {
          stderr += chunk.toString();
          done();
        },
      });
      const log = new Logger('hermes-x', stream, { color: false });
      log.warn(`endpoint said: ${encoded}`);
      log.error(`raw ${secret}`);
      log.info(`${[...secret].reverse().join('')}`);
      await writeJsonAtomic(join(dir, 'run.json'), { note: secret });
      await writeFileAtomic(join(dir, 'failures.jsonl'), `${JSON.stringify({ reason: Buffer.from(secret).toString('hex') })}\n`);
      const jsonl = await JsonlWriter.open(join(dir, 'rejects.jsonl'), stream, dir);
      await jsonl.write({ reason: encodeURIComponent(secret) });
      await jsonl.close();
      const written = [stderr, ...['run.json', 'failures.jsonl', 'rejects.jsonl'].map((file) => readFileSync(join(dir, file), 'utf8'))];
      for (const text of written) {
        expect(holdsSecret(text), text).toBe(false);
        expect(text).toContain(`[api key ${keyFingerprint(secret)}]`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
