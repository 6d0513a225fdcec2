// findSecrets finds the key formats of common providers in any text, never in ordinary words that
// share their prefixes, and reports where a match is without returning the secret.
import { describe, expect, it } from 'vitest';
import { findSecrets } from '@hermes-datagen/core';
import { TEST_API_KEY } from '../util/secrets.js';

// Fake keys in each provider's format, built from parts so that no scanner flags this file itself.
const FAKE = {
  openai: ['sk-', 'proj-', 'Fake0Key1For2Tests3Only4abcdefgh'].join(''),
  anthropic: ['sk-', 'ant-api03-', 'Fake9Key8For7Tests6Only5xyzXYZ0123'].join(''),
  hermesTest: TEST_API_KEY,
  aws: ['AKIA', 'IOSFODNN7EXAMPLE'].join(''),
  github: ['ghp_', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'].join(''),
  google: ['AIza', 'SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'].join(''),
  huggingface: ['hf_', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z'].join(''),
  slack: ['xoxb-', '1234567890-0987654321-AbCdEfGhIj'].join(''),
  privateKey: ['-----BEGIN ', 'RSA PRIVATE KEY-----'].join(''),
  bearer: ['Bearer ', 'eyJhbGciOiJIUzI1NiJ9.e30.Zm9v123'].join(''),
};

describe('findSecrets', () => {
  it.each(Object.entries(FAKE))('finds a %s key inside JSON text, with its place and length', (_name, key) => {
    const text = JSON.stringify({ value: `the key is ${key} here` });
    const found = findSecrets(text);
    expect(found).toHaveLength(1);
    const [match] = found;
    expect(text.slice(match?.index, (match?.index ?? 0) + (match?.length ?? 0))).toBe(key);
    expect(key.startsWith(match?.prefix ?? '?')).toBe(true);
  });

  it('never returns the secret itself, only the pattern name, its fixed prefix, place and length', () => {
    const [match] = findSecrets(`x ${FAKE.openai}`);
    expect(JSON.stringify(match)).not.toContain(FAKE.openai.slice(3));
    expect(match).toEqual({ pattern: expect.stringContaining('sk-') as string, prefix: 'sk-', index: 2, length: FAKE.openai.length });
  });

  it.each([
    ['a word ending in sk-', 'the task-force-assignment-document-2024-v123 is ready'],
    ['sk- followed by words without digits', 'use sk-learn-compatible-estimators-for-this'],
    ['sk- too short', 'sk-abc123'],
    ['hf_ in a package name', 'pip install hf_transfer_accelerated_downloads_now'],
    ['Bearer in prose', 'the Bearer of bad news arrived with the scroll'],
    ['AKIA inside a longer word', 'XAKIAIOSFODNN7EXAMPLE'],
    ['a public key block', '-----BEGIN PUBLIC KEY-----'],
    ['plain text', 'Create hello.py that prints hi.'],
  ])('ignores %s', (_name, text) => {
    expect(findSecrets(text)).toEqual([]);
  });

  it('finds every key of a text, pattern by pattern', () => {
    const text = `${FAKE.aws} and ${FAKE.openai} and ${FAKE.aws}`;
    expect(findSecrets(text).map((m) => m.pattern)).toEqual([expect.stringContaining('sk-'), 'AWS access key id', 'AWS access key id']);
  });
});
