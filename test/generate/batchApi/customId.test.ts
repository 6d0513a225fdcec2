// custom_ids of the batch API: one string per (record, turn, attempt), read back whole whatever the record id holds.
import { describe, expect, it } from 'vitest';
import { customId, parseCustomId } from '@hermes-datagen/generate/internal/batchApi/customId.js';

describe('customId', () => {
  it('names the record, the turn and, from the second send on, the attempt', () => {
    expect(customId({ id: 'p1', turn: 0, attempt: 0 })).toBe('p1@t0');
    expect(customId({ id: 'p1#s2', turn: 3, attempt: 2 })).toBe('p1#s2@t3r2');
    expect(customId({ id: 'p1/d0.1', turn: 12, attempt: 0 })).toBe('p1/d0.1@t12');
  });

  it('reads back every id it wrote, even a record id that looks like a suffix itself', () => {
    const calls = [
      { id: 'a', turn: 0, attempt: 0 },
      { id: 'a@t1', turn: 2, attempt: 0 },
      { id: 'a@t1r3', turn: 2, attempt: 1 },
      { id: 'row with spaces/d1.7', turn: 9, attempt: 14 },
    ];
    const written = calls.map(customId);
    expect(new Set(written).size).toBe(calls.length);
    expect(written.map(parseCustomId)).toEqual(calls);
  });

  it('refuses strings it never writes', () => {
    for (const value of ['p1', '@t0', 'p1@t', 'p1@tx', 'p1@t1r0', 'p1@t1r', 'p1@t-1']) expect(parseCustomId(value), value).toBeUndefined();
  });
});
