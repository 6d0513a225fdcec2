// A seedable random source, so that `--seed` makes toolset sampling reproducible (upstream has none).
import { UsageError } from './errors.js';

/** Uniform in [0, 1), like Python's random.random(). */
export type Rng = () => number;

/**
 * mulberry32: 32 bits of state, fast, and the same sequence for the same seed on every platform.
 * Enough for sampling toolsets; not for anything secret. Any safe integer is a seed: the bits above
 * 32 are folded in, so 1 and 2**32 + 1 give different sequences.
 */
export function createRng(seed: number): Rng {
  if (!Number.isSafeInteger(seed)) throw new UsageError(`the seed must be an integer, got ${String(seed)}`);
  const high = Math.floor(seed / 2 ** 32);
  let state = (seed ^ Math.imul(high, 0x9e3779b9)) >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
