// A simple bounded pool: at most `limit` tasks at a time, and the next item is taken from the source
// only when a slot is free, so a large input is read as fast as it is processed, not ahead of it.
// Tasks report their own expected failures; one that throws (a bug) stops the intake, the running
// tasks finish, and the error is rethrown. A source that throws is rethrown once the running tasks finish.

export async function runBounded<T>(items: AsyncIterable<T>, limit: number, task: (item: T) => Promise<void>, signal: AbortSignal): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  try {
    for await (const item of items) {
      if (signal.aborted || failure) break;
      const run: Promise<void> = task(item)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => running.delete(run));
      running.add(run);
      if (running.size >= limit) await Promise.race(running);
    }
  } finally {
    // Also when the source fails (a bad input line): the running tasks finish and write their results.
    await Promise.all(running);
  }
  if (failure) throw failure.error;
}
