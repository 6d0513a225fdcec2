// The token counter's table of short ASCII pieces: a lookup gives the count set for that exact piece
// or 0 (unknown), never another piece's count, through collisions and through the start-over when half full.
import { describe, expect, it } from 'vitest';
import { createRng } from '@hermes-datagen/core';
import { ShortPieceTable } from '@hermes-datagen/core/internal/tokenizer.js';

/** Random ASCII pieces of 1 to 7 characters, codes 32-126. */
function randomPieces(count: number, seed: number): string[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(rng() * 7) }, () => String.fromCharCode(32 + Math.floor(rng() * 95))).join(''),
  );
}

/** A count that differs between pieces that differ anywhere, so a mixed-up slot shows. */
const countOf = (piece: string): number => 1 + [...piece].reduce((sum, c, i) => (sum * 131 + c.charCodeAt(0) + i) % 100_003, piece.length);

describe('ShortPieceTable', () => {
  it('finds each piece where it was set, inside a longer text, and tells pieces apart by every character and by length', () => {
    const table = new ShortPieceTable(12);
    const pieces = ['a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef', 'abcdefg', 'abcdefh', 'bbcdefg', ' a', 'a '];
    for (const piece of pieces) {
      expect(table.get(piece, 0, piece.length)).toBe(0);
      table.set(countOf(piece));
    }
    for (const piece of pieces) {
      const text = `xx${piece}yy`;
      expect(table.get(text, 2, piece.length)).toBe(countOf(piece));
    }
  });

  it('through collisions and start-overs (a 16-slot table, 5,000 pieces): a known piece has its own count, an unknown one 0', () => {
    const table = new ShortPieceTable(4);
    const known = new Map<string, number>();
    let startOvers = 0;
    for (const piece of randomPieces(5000, 7)) {
      const found = table.get(piece, 0, piece.length);
      if (found !== 0) {
        expect(found).toBe(countOf(piece));
        continue;
      }
      if (known.size === 8) {
        known.clear();
        startOvers++;
      }
      table.set(countOf(piece));
      known.set(piece, countOf(piece));
      for (const [earlier, count] of known) expect(table.get(earlier, 0, earlier.length)).toBe(count);
    }
    expect(startOvers).toBeGreaterThan(100);
  });
});
