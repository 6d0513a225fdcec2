// keyForms: what hermes-verify looks for instead of redacting each text; a text holds one of the forms
// exactly when redact would change it.
import { describe, expect, it } from 'vitest';
import { keyForms, redact } from '@hermes-datagen/core';

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
