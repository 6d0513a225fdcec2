import { describe, expect, it } from 'vitest';
import { PendingWork } from '@hermes-datagen/generate/internal/run/pendingWork.js';
import { withResolvers, type Resolvers } from '@hermes-datagen/generate/internal/withResolvers.js';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Pieces of work the test settles, each added to `pending` (which may hold the caller for a while). */
async function added(pending: PendingWork, n: number, bytes = 1): Promise<Resolvers[]> {
  const pieces = Array.from({ length: n }, withResolvers);
  for (const piece of pieces) await pending.add(piece.promise, bytes);
  return pieces;
}

describe('pending work', () => {
  it('lets its caller go on at once up to the limit in bytes, and holds the caller over it until enough has finished', async () => {
    const pending = new PendingWork(100, () => undefined);
    const pieces = [...(await added(pending, 2, 40)), withResolvers()];
    let third = false;
    const adding = pending.add(pieces[2]!.promise, 40).then(() => (third = true));
    await settle();
    expect(third).toBe(false);
    pieces[1]!.resolve();
    await adding;
    expect(third).toBe(true);
  });

  it('lets one piece larger than the limit through when nothing else waits', async () => {
    const pending = new PendingWork(100, () => undefined);
    const [big] = await added(pending, 1, 1_000);
    let second = false;
    const adding = pending.add(withResolvers().promise, 1).then(() => (second = true));
    await settle();
    expect(second).toBe(false);
    big!.resolve();
    await adding;
    expect(second).toBe(true);
  });

  it('settles when every piece has finished', async () => {
    const pending = new PendingWork(10, () => undefined);
    const pieces = await added(pending, 2);
    let settled = false;
    const done = pending.settled().then(() => (settled = true));
    pieces[0]!.resolve();
    await settle();
    expect(settled).toBe(false);
    pieces[1]!.resolve();
    await done;
    expect(settled).toBe(true);
  });

  it('reports the first failure at once, waits for the other pieces, then rejects with it', async () => {
    const failures: unknown[] = [];
    const pending = new PendingWork(10, (error) => failures.push(error));
    const pieces = await added(pending, 3);
    const full = new Error('disk full');
    pieces[0]!.reject(full);
    pieces[1]!.reject(new Error('later'));
    await settle();
    expect(failures).toEqual([full]);
    let outcome: unknown = 'pending';
    const done = pending.settled().catch((error: unknown) => (outcome = error));
    await settle();
    expect(outcome).toBe('pending');
    pieces[2]!.resolve();
    await done;
    expect(outcome).toBe(full);
  });
});
