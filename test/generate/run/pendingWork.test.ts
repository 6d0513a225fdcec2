import { describe, expect, it } from 'vitest';
import { PendingWork } from '@hermes-datagen/generate/internal/run/pendingWork.js';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A piece of work the test finishes. */
function work(): { promise: Promise<void>; finish: () => void; fail: (error: Error) => void } {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { promise, finish, fail };
}

describe('pending work', () => {
  it('lets its caller go on at once up to the limit, and holds the caller over it until a piece finishes', async () => {
    const pending = new PendingWork(2, () => undefined);
    const pieces = [work(), work(), work()];
    await pending.add(pieces[0]!.promise);
    await pending.add(pieces[1]!.promise);
    let third = false;
    const adding = pending.add(pieces[2]!.promise).then(() => (third = true));
    await settle();
    expect(third).toBe(false);
    pieces[1]!.finish();
    await adding;
    expect(third).toBe(true);
  });

  it('settles when every piece has finished', async () => {
    const pending = new PendingWork(10, () => undefined);
    const pieces = [work(), work()];
    for (const piece of pieces) await pending.add(piece.promise);
    let settled = false;
    const done = pending.settled().then(() => (settled = true));
    pieces[0]!.finish();
    await settle();
    expect(settled).toBe(false);
    pieces[1]!.finish();
    await done;
    expect(settled).toBe(true);
  });

  it('reports the first failure at once, waits for the other pieces, then rejects with it', async () => {
    const failures: unknown[] = [];
    const pending = new PendingWork(10, (error) => failures.push(error));
    const pieces = [work(), work(), work()];
    for (const piece of pieces) await pending.add(piece.promise);
    const full = new Error('disk full');
    pieces[0]!.fail(full);
    pieces[1]!.fail(new Error('later'));
    await settle();
    expect(failures).toEqual([full]);
    let outcome: unknown = 'pending';
    const done = pending.settled().catch((error: unknown) => (outcome = error));
    await settle();
    expect(outcome).toBe('pending');
    pieces[2]!.finish();
    await done;
    expect(outcome).toBe(full);
  });
});
