// The secrets check reads a trajectory's free-form fields (id, toolsets, metadata) field by field and
// writes them out as one text only when a field may hold a key pattern: that shortcut must never miss
// what a scan of the whole text finds, nested JSON, escapes and patterns across two fields included.
import { describe, expect, it } from 'vitest';
import { findSecrets, type Trajectory } from '@hermes-datagen/core';
import { createRng } from '@hermes-datagen/core/internal/rng.js';
import { freeFormMayHoldSecret, freeFormText } from '@hermes-datagen/verify/internal/secretScan.js';
import { randomText } from '../util/randomText.js';
import { recordFor } from './fixtures.js';

const PIECES = [
  'sk-',
  'abc',
  'Bearer',
  ' ',
  'PRIVATE',
  'KEY-----',
  '-----BEGIN RSA ',
  'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9',
  '\n',
  '"',
  '\\',
  '\u0001',
  '\u001f',
  'gh',
  'p_',
  'xox',
  'b-',
  'hf_',
  'k_live_',
  '\ud800',
  'AKIA',
  'ABCDEFGHIJ0123456789',
];

const text = (rng: () => number): string => randomText(rng, PIECES, 6);

function value(rng: () => number, depth: number): unknown {
  const pick = rng();
  if (depth > 2 || pick < 0.4) return text(rng);
  if (pick < 0.5) return Math.floor(rng() * 1e6) * (rng() < 0.5 ? 1 : 1e17);
  if (pick < 0.55) return [true, false, null][Math.floor(rng() * 3)];
  if (pick < 0.75) return Array.from({ length: Math.floor(rng() * 3) }, () => value(rng, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(rng() * 3) }, () => [text(rng), value(rng, depth + 1)]));
}

/** A record whose metadata holds these entries beside the ones every record has (the schema allows more). */
function withMetadata(extra: Record<string, unknown>, fields: Partial<Trajectory> = {}): Trajectory {
  const record = recordFor(0, fields);
  return { ...record, metadata: { ...record.metadata, ...extra } };
}

function randomRecord(rng: () => number): Trajectory {
  const metadata = Object.fromEntries(Array.from({ length: Math.floor(rng() * 4) }, (_, i) => [`k${i}${text(rng)}`, value(rng, 0)]));
  return withMetadata(metadata, { id: text(rng) || 'id', toolsets_used: Array.from({ length: Math.floor(rng() * 3) }, () => text(rng)) });
}

describe('secrets: the free-form fields read field by field', () => {
  it('never says "no key pattern" where the whole text has one', () => {
    const rng = createRng(5);
    let found = 0;
    let skipped = 0;
    for (let i = 0; i < 4000; i++) {
      const record = randomRecord(rng);
      const secrets = findSecrets(freeFormText(record)).length;
      if (secrets > 0) found += 1;
      if (!freeFormMayHoldSecret(record)) {
        skipped += 1;
        expect(secrets, JSON.stringify(record)).toBe(0);
      }
    }
    // Both sides are exercised: texts with patterns, and texts the shortcut skips.
    expect(found).toBeGreaterThan(50);
    expect(skipped).toBeGreaterThan(200);
  });

  it('a pattern in a nested key, or in an array of a nested object, is not skipped', () => {
    for (const metadata of [{ usage: { 'sk-a1b2c3d4e5f6g7h8i9j0k1l2m3n4': 1 } }, { x: { y: [0, 'hf_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6'] } }]) {
      const record = withMetadata(metadata);
      expect(findSecrets(freeFormText(record))).toHaveLength(1);
      expect(freeFormMayHoldSecret(record)).toBe(true);
    }
  });

  it('a pattern across two fields (a private key block cut at the space) is not skipped', () => {
    const record = withMetadata({ a: '-----BEGIN RSA PRIVATE', b: 'KEY-----' });
    expect(findSecrets(freeFormText(record))).toHaveLength(1);
    expect(freeFormMayHoldSecret(record)).toBe(true);
  });
});
