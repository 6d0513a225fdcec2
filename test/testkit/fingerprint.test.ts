import { describe, expect, it } from 'vitest';
import { fingerprint, redactHeaders, unitDraw } from '@hermes-datagen/testkit/internal/fingerprint.js';

describe('fingerprint', () => {
  it('is a short SHA-256 of the token, the same with or without the Bearer prefix', () => {
    expect(fingerprint('sk-abc')).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(fingerprint('Bearer sk-abc')).toBe(fingerprint('sk-abc'));
    expect(fingerprint('sk-abd')).not.toBe(fingerprint('sk-abc'));
  });
});

describe('redactHeaders', () => {
  it('replaces every credential header by its fingerprint and keeps the others', () => {
    const headers = redactHeaders({
      authorization: 'Bearer sk-live-123',
      'x-api-key': 'sk-live-123',
      'api-key': 'sk-live-123',
      'user-agent': 'ua',
      accept: ['a', 'b'],
    });
    expect(JSON.stringify(headers)).not.toContain('sk-live-123');
    expect(headers).toEqual({
      authorization: fingerprint('sk-live-123'),
      'x-api-key': fingerprint('sk-live-123'),
      'api-key': fingerprint('sk-live-123'),
      'user-agent': 'ua',
      accept: 'a, b',
    });
  });
});

describe('unitDraw', () => {
  it('gives the same number in [0, 1) for the same text, spread over the range', () => {
    const draws = Array.from({ length: 1000 }, (_, i) => unitDraw(`seed:${i}`));
    expect(draws.every((d) => d >= 0 && d < 1)).toBe(true);
    expect(unitDraw('seed:7')).toBe(draws[7]);
    const low = draws.filter((d) => d < 0.5).length;
    expect(low).toBeGreaterThan(430);
    expect(low).toBeLessThan(570);
  });
});
