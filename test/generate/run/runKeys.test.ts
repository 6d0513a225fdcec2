import { describe, expect, it } from 'vitest';
import { UsageError } from '@hermes-datagen/core';
import { recordId, rowHash } from '@hermes-datagen/generate/internal/run/recordId.js';
import { inShard, parseShard, shardOf } from '@hermes-datagen/generate/internal/run/shard.js';

describe('record ids', () => {
  it('are the prompt id for the first sample and add #s<k> for the others', () => {
    expect(recordId('p3-abc', 0)).toBe('p3-abc');
    expect(recordId('p3-abc', 2)).toBe('p3-abc#s2');
  });

  it('come with a row hash that changes with any field of the row', () => {
    const a = rowHash({ prompt: 'x' });
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(rowHash({ prompt: 'x' })).toBe(a);
    expect(rowHash({ prompt: 'x', cwd: 'd' })).not.toBe(a);
    expect(rowHash({ prompt: 'y' })).not.toBe(a);
  });
});

describe('--shard', () => {
  it('parses i/N and refuses what is not a shard', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['4/4', '-1/4', '1/0', 'a/b', '1', '1/2/3']) expect(() => parseShard(bad)).toThrow(UsageError);
  });

  it('puts every id in exactly one shard, spread about evenly', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => `p${i}-x`);
    const counts = [0, 1, 2, 3].map((index) => ids.filter((id) => inShard(id, { index, count: 4 })).length);
    expect(counts.reduce((a, b) => a + b)).toBe(4000);
    for (const count of counts) expect(count).toBeGreaterThan(800);
    for (const id of ids.slice(0, 50)) expect(shardOf(id, 4)).toBe(shardOf(id, 4));
    expect(inShard('anything', undefined)).toBe(true);
  });
});
