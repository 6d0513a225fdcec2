// --shard i/N: each machine takes the rows whose id hashes to its shard, so N machines can run the
// same command on the same dataset without talking to each other, and their union is every row once.
import { createHash } from 'node:crypto';
import { UsageError } from '@hermes-datagen/core';

export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** `i/N` with 0 <= i < N. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!(count >= 1) || !(index >= 0) || index >= count) {
    throw new UsageError(`--shard takes i/N with 0 <= i < N (e.g. 0/4 ... 3/4), got ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/** The shard a prompt id belongs to: the first 48 bits of its SHA-256, modulo N. */
export function shardOf(promptId: string, count: number): number {
  const digest = createHash('sha256').update(promptId, 'utf8').digest();
  return digest.readUIntBE(0, 6) % count;
}

export function inShard(promptId: string, shard: Shard | undefined): boolean {
  return shard === undefined || shardOf(promptId, shard.count) === shard.index;
}
