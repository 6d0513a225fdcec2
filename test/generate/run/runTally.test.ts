import { describe, expect, it } from 'vitest';
import { RunTally } from '@hermes-datagen/generate/internal/run/runTally.js';

describe('the run tally', () => {
  it('counts prompts done as root records, tombstones and failures, and estimates the time left from them', () => {
    const tally = new RunTally();
    tally.records = 12;
    tally.skipped = 2;
    tally.written = 5; // 2 of them by sub-agents: 3 prompts
    tally.subAgents = 2;
    tally.tombstones = 1;
    tally.addFailure('rate-limited');
    expect(tally.failed).toBe(1);
    // 5 of 10 done in 10 s: 5 left, 10 s more.
    expect(tally.progress(3, { inFlight: 2, limit: 28, refusalsPerMinute: 7 }, 10)).toBe(
      '5/10 prompts done, 3 running, 2 in flight of 28 allowed, 7 429s/min, ETA 10s',
    );
  });

  it('shows no ETA before the first prompt is done or after the last', () => {
    const tally = new RunTally();
    tally.records = 2;
    expect(tally.progress(2, undefined, 5)).toBe('0/2 prompts done, 2 running');
    tally.written = 2;
    expect(tally.progress(0, { inFlight: 0, limit: 40, refusalsPerMinute: 0 }, 5)).toBe('2/2 prompts done, 0 running, 0 in flight of 40 allowed, 0 429s/min');
  });

  it('exits 0 without failures, 4 when each may pass later, 1 when one needs a fix, 70 when one was a bug', () => {
    const tally = new RunTally();
    expect(tally.failureCode()).toBe(0);
    tally.addFailure('rate-limited');
    expect(tally.failureCode()).toBe(4);
    tally.addFailure('unauthorized');
    expect(tally.failureCode()).toBe(1);
    tally.addFailure('internal');
    expect(tally.failureCode()).toBe(70);
  });
});
