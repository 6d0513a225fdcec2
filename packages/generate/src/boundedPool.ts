// A simple bounded pool: at most `limit` tasks at a time, and the next item is taken from the source
// only when a slot is free, so a large input is read as fast as it is processed, not ahead of it.
// Tasks report their own expected failures; one that throws (a bug) stops the intake, the running
// tasks finish, and the error is rethrown. A source that throws is rethrown once the running tasks finish.
// Only a count is kept: waiting for a free slot costs the same with 512 tasks running as with 4
// (a Promise.race over the running set would add a callback to each of them for every new task).

export async function runBounded<T>(items: AsyncIterable<T>, limit: number, task: (item: T) => Promise<void>, signal: AbortSignal): Promise<void> {
  let running = 0;
  let slotFreed: (() => void) | undefined;
  let allFinished: (() => void) | undefined;
  let failure: { error: unknown } | undefined;
  const finished = (): void => {
    running -= 1;
    slotFreed?.();
    slotFreed = undefined;
    if (running === 0) allFinished?.();
  };
  try {
    for await (const item of items) {
      if (signal.aborted || failure) break;
      running += 1;
      task(item).then(finished, (error: unknown) => {
        failure ??= { error };
        finished();
      });
      if (running >= limit) await new Promise<void>((resolve) => (slotFreed = resolve));
    }
  } finally {
    // Also when the source fails (a bad input line): the running tasks finish and write their results.
    if (running > 0) await new Promise<void>((resolve) => (allFinished = resolve));
  }
  if (failure) throw failure.error;
}
