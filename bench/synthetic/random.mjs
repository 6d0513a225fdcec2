// A small seeded PRNG (sfc32) and the draws the corpus generator needs.
// Each record gets its own generator seeded from (corpus seed, record index), so record i is the same
// whatever the corpus size: a 2000-record corpus is the first 2000 lines of the 100k one.

/** @typedef {{ next(): number, int(min: number, max: number): number, chance(p: number): boolean, pick<T>(list: readonly T[]): T, weighted<T>(entries: readonly [T, number][]): T, hex(length: number): string }} Rng */

/** @returns {Rng} */
export function createRng(seed, stream, variant = 0) {
  // 128 bits of state: distinct (seed, stream, variant) triples start from distinct states, unlike a 32-bit hash.
  let a = seed >>> 0;
  let b = stream >>> 0;
  let c = (0x9e3779b9 + variant) | 0;
  let d = 1;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // The first outputs of sfc32 still show the seed; discard them.
  for (let i = 0; i < 16; i++) next();
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    weighted: (entries) => {
      let total = 0;
      for (const [, w] of entries) total += w;
      let r = next() * total;
      for (const [value, w] of entries) {
        r -= w;
        if (r < 0) return value;
      }
      return entries[entries.length - 1][0];
    },
    hex: (length) => {
      let s = '';
      while (s.length < length)
        s += Math.floor(next() * 4294967296)
          .toString(16)
          .padStart(8, '0');
      return s.slice(0, length);
    },
  };
}

/** A generator that depends only on a label, for text that must be the same in every record (tool descriptions). */
export function rngFor(label) {
  let h = 2166136261;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619);
  return createRng(h, label.length);
}
