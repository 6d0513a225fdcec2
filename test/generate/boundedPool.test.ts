import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runBounded } from '../../packages/generate/src/boundedPool.js';

async function* numbers(n: number, taken: number[]): AsyncGenerator<number> {
  for (let i = 0; i < n; i += 1) {
    taken.push(i);
    yield i;
  }
}

describe('runBounded', () => {
  it('runs every item, never more than the limit at once', async () => {
    let active = 0;
    let peak = 0;
    const done: number[] = [];
    await runBounded(numbers(20, []), 4, async (i) => {
      active += 1;
      peak = Math.max(peak, active);
      await sleep(i % 3);
      active -= 1;
      done.push(i);
    }, new AbortController().signal);
    expect(done.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(peak).toBe(4);
  });

  it('takes the next item only when a slot is free', async () => {
    const taken: number[] = [];
    const release: (() => void)[] = [];
    const pool = runBounded(numbers(10, taken), 2, () => new Promise<void>((resolve) => release.push(resolve)), new AbortController().signal);
    await sleep(10);
    expect(taken).toEqual([0, 1]);
    release.shift()?.();
    await sleep(10);
    expect(taken).toEqual([0, 1, 2]);
    while (release.length > 0) {
      release.shift()?.();
      await sleep(1);
    }
    await pool;
    expect(taken).toHaveLength(10);
  });

  it('stops taking items once the signal is aborted and waits for the running ones', async () => {
    const controller = new AbortController();
    const taken: number[] = [];
    const finished: number[] = [];
    await runBounded(numbers(100, taken), 3, async (i) => {
      if (i === 4) controller.abort();
      await sleep(5);
      finished.push(i);
    }, controller.signal);
    // Item 4 aborts as it starts; it and the two before it still finish, nothing after it runs.
    expect(finished.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    expect(taken.length).toBeLessThanOrEqual(6);
  });

  it('rethrows the error of a task that throws, after the running tasks finish', async () => {
    const finished: number[] = [];
    const pool = runBounded(numbers(50, []), 3, async (i) => {
      if (i === 2) throw new Error('bug in task 2');
      await sleep(5);
      finished.push(i);
    }, new AbortController().signal);
    await expect(pool).rejects.toThrow('bug in task 2');
    expect(finished.length).toBeLessThan(10);
    expect(finished).toEqual(expect.arrayContaining([0, 1]));
  });
});

describe('runBounded with a source that fails', () => {
  it('lets the running tasks finish before the source error comes out', async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 0;
      yield 1;
      throw new Error('bad input line');
    }
    const finished: number[] = [];
    await expect(runBounded(failing(), 4, async (i) => {
      await sleep(20);
      finished.push(i);
    }, new AbortController().signal)).rejects.toThrow('bad input line');
    expect(finished.sort()).toEqual([0, 1]);
  });
});
