// Every step is driven by the test: tasks finish when released, and settle() lets the pool do all it
// can (its steps are promise callbacks, which all run before the next turn of the event loop), so no
// assertion depends on how long a sleep lasted on a busy machine.
import { describe, expect, it } from 'vitest';
import { runBounded } from '@hermes-datagen/generate/internal/boundedPool.js';

async function* numbers(n: number, taken: number[]): AsyncGenerator<number> {
  for (let i = 0; i < n; i += 1) {
    taken.push(i);
    yield i;
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Tasks that run until the test releases them. */
class Tasks {
  public readonly running = new Set<number>();
  public readonly finished: number[] = [];
  private readonly releases = new Map<number, (error?: Error) => void>();

  public readonly run = (i: number): Promise<void> => {
    this.running.add(i);
    return new Promise<void>((resolve, reject) => {
      this.releases.set(i, (error) => {
        this.running.delete(i);
        if (error) return reject(error);
        this.finished.push(i);
        resolve();
      });
    });
  };

  public async release(i: number, error?: Error): Promise<void> {
    const release = this.releases.get(i);
    if (!release) throw new Error(`task ${i} is not running`);
    this.releases.delete(i);
    release(error);
    await settle();
  }
}

describe('runBounded', () => {
  it('runs every item, never more than the limit at once', async () => {
    const tasks = new Tasks();
    const taken: number[] = [];
    let peak = 0;
    const pool = runBounded(numbers(20, taken), 4, (i) => {
      const running = tasks.run(i);
      peak = Math.max(peak, tasks.running.size);
      return running;
    }, new AbortController().signal);
    await settle();
    // Release in an order other than the start order: the pool refills whichever slot frees.
    while (tasks.running.size > 0) {
      expect(tasks.running.size).toBe(Math.min(4, 20 - tasks.finished.length));
      await tasks.release(Math.max(...tasks.running));
    }
    await pool;
    expect(tasks.finished.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(peak).toBe(4);
  });

  it('takes the next item only when a slot is free', async () => {
    const tasks = new Tasks();
    const taken: number[] = [];
    const pool = runBounded(numbers(10, taken), 2, tasks.run, new AbortController().signal);
    await settle();
    expect(taken).toEqual([0, 1]);
    await tasks.release(0);
    expect(taken).toEqual([0, 1, 2]);
    await tasks.release(2);
    expect(taken).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < 10; i += 1) if (i !== 2) await tasks.release(i);
    await pool;
    expect(taken).toHaveLength(10);
  });

  it('stops taking items once the signal is aborted and waits for the running ones', async () => {
    const controller = new AbortController();
    const tasks = new Tasks();
    const taken: number[] = [];
    let settled = false;
    const pool = runBounded(numbers(100, taken), 3, (i) => {
      if (i === 4) controller.abort();
      return tasks.run(i);
    }, controller.signal).then(() => {
      settled = true;
    });
    await settle();
    await tasks.release(0);
    await tasks.release(1);
    // Item 4 aborted as it started: 2, 3 and 4 still run, and the pool waits for them.
    expect([...tasks.running].sort()).toEqual([2, 3, 4]);
    await tasks.release(2);
    await tasks.release(3);
    expect(settled).toBe(false);
    await tasks.release(4);
    await pool;
    expect(tasks.finished.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    expect(taken.length).toBeLessThanOrEqual(6);
  });

  it('rethrows the error of a task that throws, after the running tasks finish', async () => {
    const tasks = new Tasks();
    let outcome: unknown;
    const pool = runBounded(numbers(50, []), 3, tasks.run, new AbortController().signal).catch((error: unknown) => {
      outcome = error;
    });
    await settle();
    await tasks.release(2, new Error('bug in task 2'));
    // No new task is taken, and the error waits for the two still running.
    expect([...tasks.running].sort()).toEqual([0, 1]);
    await tasks.release(0);
    expect(outcome).toBeUndefined();
    await tasks.release(1);
    await pool;
    expect(outcome).toEqual(new Error('bug in task 2'));
    expect(tasks.finished.sort()).toEqual([0, 1]);
  });
});

describe('runBounded with a source that fails', () => {
  it('lets the running tasks finish before the source error comes out', async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 0;
      yield 1;
      throw new Error('bad input line');
    }
    const tasks = new Tasks();
    let outcome: unknown;
    const pool = runBounded(failing(), 4, tasks.run, new AbortController().signal).catch((error: unknown) => {
      outcome = error;
    });
    await settle();
    expect([...tasks.running].sort()).toEqual([0, 1]);
    await tasks.release(1);
    expect(outcome).toBeUndefined();
    await tasks.release(0);
    await pool;
    expect(outcome).toEqual(new Error('bad input line'));
    expect(tasks.finished.sort()).toEqual([0, 1]);
  });
});
