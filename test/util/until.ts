// Waiting for something a run in another process does (a line on stdout, a request the endpoint
// received, a file written, a process gone). Polled with no deadline of its own, so a busy machine only
// makes the wait longer: a run that never gets there fails by the test's timeout, which is the bound.
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
