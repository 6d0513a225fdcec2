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

/** A promise's outcome, readable at any moment without waiting for it. */
class Outcome {
  public state: 'pending' | 'fulfilled' | 'rejected' = 'pending';
  public error: unknown;
  public readonly done: Promise<void>;

  public constructor(promise: Promise<void>) {
    this.done = promise.then(
      () => {
        this.state = 'fulfilled';
      },
      (error: unknown) => {
        this.state = 'rejected';
        this.error = error;
      },
    );
  }
}

/** Releases the running tasks one at a time: the pool's error comes out only once the last has finished. */
async function expectErrorAfterRunningTasks(pool: Outcome, tasks: Tasks, error: Error): Promise<void> {
  const running = [...tasks.running].sort();
  for (const i of running) {
    expect(pool.state).toBe('pending');
    await tasks.release(i);
  }
  await pool.done;
  expect(pool.error).toEqual(error);
  expect(tasks.finished.sort()).toEqual(running);
}

describe('runBounded', () => {
  it('runs every item, never more than the limit at once', async () => {
    const tasks = new Tasks();
    const taken: number[] = [];
    let peak = 0;
    const pool = runBounded(
      numbers(20, taken),
      4,
      (i) => {
        const running = tasks.run(i);
        peak = Math.max(peak, tasks.running.size);
        return running;
      },
      new AbortController().signal,
    );
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
    const pool = new Outcome(
      runBounded(
        numbers(100, taken),
        3,
        (i) => {
          if (i === 4) controller.abort();
          return tasks.run(i);
        },
        controller.signal,
      ),
    );
    await settle();
    await tasks.release(0);
    await tasks.release(1);
    // Item 4 aborted as it started: 2, 3 and 4 still run, and the pool waits for them.
    expect([...tasks.running].sort()).toEqual([2, 3, 4]);
    await tasks.release(2);
    await tasks.release(3);
    expect(pool.state).toBe('pending');
    await tasks.release(4);
    await pool.done;
    expect(pool.state).toBe('fulfilled');
    expect(tasks.finished.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    expect(taken.length).toBeLessThanOrEqual(6);
  });

  it('rethrows the error of a task that throws, after the running tasks finish', async () => {
    const tasks = new Tasks();
    const pool = new Outcome(runBounded(numbers(50, []), 3, tasks.run, new AbortController().signal));
    await settle();
    await tasks.release(2, new Error('bug in task 2'));
    // No new task is taken, and the error waits for the two still running.
    expect([...tasks.running].sort()).toEqual([0, 1]);
    await expectErrorAfterRunningTasks(pool, tasks, new Error('bug in task 2'));
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
    const pool = new Outcome(runBounded(failing(), 4, tasks.run, new AbortController().signal));
    await settle();
    expect([...tasks.running].sort()).toEqual([0, 1]);
    await expectErrorAfterRunningTasks(pool, tasks, new Error('bad input line'));
  });
});
