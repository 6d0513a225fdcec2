// The stop rules of a run, with fake timers for the grace period.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InputStopped } from '@hermes-datagen/generate/internal/promptFailure.js';
import { RunStops } from '@hermes-datagen/generate/internal/run/runStops.js';
import { quietLogger } from '../../util/runStages.js';

describe('run stops', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('on a signal stops intake at once and the running prompts only after the grace, then exits with the signal code', () => {
    const signal = new AbortController();
    const { log, text } = quietLogger();
    const stops = new RunStops(signal.signal, log, 30_000, undefined);
    const prompt = stops.start();
    expect(stops.code()).toBeUndefined();
    signal.abort('SIGTERM');
    expect(stops.intake.signal.aborted).toBe(true);
    expect(prompt.signal.aborted).toBe(false);
    expect(text()).toMatch(/no new prompt starts; 1 running get 30s to finish/);
    vi.advanceTimersByTime(29_999);
    expect(prompt.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(prompt.signal.aborted).toBe(true);
    expect(prompt.signal.reason).toBe('SIGTERM');
    expect(stops.code()).toBe(143);
  });

  it('a signal that came before the run was set up stops it as one that comes during it', () => {
    const signal = new AbortController();
    signal.abort('SIGTERM');
    const stops = new RunStops(signal.signal, quietLogger().log, 0, undefined);
    expect(stops.intake.signal.aborted).toBe(true);
    const prompt = stops.start();
    vi.advanceTimersByTime(0);
    expect(prompt.signal.aborted).toBe(true);
    expect(stops.code()).toBe(143);
  });

  it('SIGINT exits 130; a prompt that finished is not aborted later', () => {
    const signal = new AbortController();
    const stops = new RunStops(signal.signal, quietLogger().log, 0, undefined);
    const done = stops.start();
    stops.finished(done);
    const running = stops.start();
    expect(stops.runningCount).toBe(1);
    signal.abort('SIGINT');
    vi.advanceTimersByTime(0);
    expect(running.signal.aborted).toBe(true);
    expect(done.signal.aborted).toBe(false);
    expect(stops.code()).toBe(130);
  });

  it('when the rate limiter gives up, intake stops at once and the running prompts go on (to fail as rate-limited at their next call), exit 4', () => {
    const quota = new AbortController();
    const { log, text } = quietLogger();
    const stops = new RunStops(new AbortController().signal, log, 30_000, quota.signal);
    const prompt = stops.start();
    quota.abort('the quota stayed exhausted');
    expect(stops.intake.signal.aborted).toBe(true);
    expect(prompt.signal.aborted).toBe(false);
    expect(text()).toMatch(/the quota stayed exhausted/);
    expect(stops.code()).toBe(4);
  });

  it('after dispose a signal stops nothing (the run is over)', () => {
    const signal = new AbortController();
    const stops = new RunStops(signal.signal, quietLogger().log, 0, undefined);
    stops.dispose();
    signal.abort('SIGTERM');
    expect(stops.intake.signal.aborted).toBe(false);
  });

  it('after a bad input line gives the running prompts the grace, then stops them as failures (InputStopped), not as a signal', () => {
    const { log, text } = quietLogger();
    const stops = new RunStops(new AbortController().signal, log, 5_000, undefined);
    const prompt = stops.start();
    stops.inputFailed(100);
    expect(text()).toMatch(/the input stopped after 100 prompts: no new prompt starts; the 1 running prompt gets 5s \(--grace\)/);
    vi.advanceTimersByTime(4_999);
    expect(prompt.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(prompt.signal.reason).toBeInstanceOf(InputStopped);
    expect(stops.code()).toBeUndefined();
  });
});
