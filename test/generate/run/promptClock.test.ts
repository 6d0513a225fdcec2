// --prompt-timeout's clock on fake timers: it counts the prompt's own work and stops while any of its calls waits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PromptClock } from '@hermes-datagen/generate/internal/run/promptClock.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('PromptClock', () => {
  it('expires after the budget of work, not counting the waits, however they overlap', async () => {
    let expiredAt = -1;
    const clock = new PromptClock(10_000, () => (expiredAt = Date.now()));
    await vi.advanceTimersByTimeAsync(4_000);
    // Two calls (a sub-agent's too) wait at once, overlapping: 1 h of waits in all, none counted.
    clock.begin();
    await vi.advanceTimersByTimeAsync(1_000_000);
    clock.begin();
    clock.end();
    await vi.advanceTimersByTimeAsync(2_600_000);
    clock.end();
    expect(expiredAt).toBe(-1);
    expect(clock.elapsedMs).toBe(4_000);
    await vi.advanceTimersByTimeAsync(5_999);
    expect(expiredAt).toBe(-1);
    await vi.advanceTimersByTimeAsync(1);
    expect(expiredAt).toBe(3_610_000);
  });

  it('never expires once stopped', async () => {
    let expired = false;
    const clock = new PromptClock(1_000, () => (expired = true));
    clock.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(expired).toBe(false);
  });
});
