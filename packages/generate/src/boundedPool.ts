// A simple bounded pool: at most `limit` tasks at a time, and the next item is taken from the source
// only when a slot is free, so a large input is read as fast as it is processed, not ahead of it.
// Tasks report their own expected failures; one that throws (a bug) stops the intake, the running
// tasks finish, and the error is rethrown.

export async function runBounded<T>(
  items: AsyncIterable<T>,
  limit: number,
  task: (item: T) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
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
  await Promise.all(running);
  if (failure) throw failure.error;
}
