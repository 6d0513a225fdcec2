import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pause } from '@hermes-datagen/core/endpoint';

describe('pause', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after its time, and leaves no listener on the signal', async () => {
    const signal = new AbortController().signal;
    const remove = vi.spyOn(signal, 'removeEventListener');
    let done = false;
    const waiting = pause(1000, signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it("an abort during the wait ends it at once with the signal's reason, or the error asked for", async () => {
    const first = new AbortController();
    const byReason = pause(60_000, first.signal);
    first.abort(new Error('stopped'));
    await expect(byReason).rejects.toThrow('stopped');
    const second = new AbortController();
    const byError = pause(60_000, second.signal, () => new RangeError('aborted by the caller'));
    second.abort();
    await expect(byError).rejects.toBeInstanceOf(RangeError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an already aborted signal rejects without waiting', async () => {
    const stopped = new AbortController();
    stopped.abort('SIGTERM');
    await expect(pause(60_000, stopped.signal)).rejects.toBe('SIGTERM');
    expect(vi.getTimerCount()).toBe(0);
  });
});
