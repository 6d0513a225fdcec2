// The one abortable wait of the clients (retry backoffs, batch polling, summary retries): a timer that
// an abort ends at once, with the listener removed when the timer wins, so waits in a loop on one
// long-lived signal do not pile up listeners.

/**
 * Resolves after ms. An abort of the signal (before or during the wait) rejects with abortError() when
 * given (the openai client's APIUserAbortError, say), else with the signal's reason.
 */
export function pause(ms: number, signal?: AbortSignal, abortError?: () => unknown): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const aborted = (): unknown => (abortError === undefined ? signal?.reason : abortError());
    if (signal?.aborted) return reject(aborted());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
