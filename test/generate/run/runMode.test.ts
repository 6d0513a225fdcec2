// Run mode's settings from its flags: how many prompts run at once.
import { describe, expect, it } from 'vitest';
import { runSettings, type RunArgs } from '@hermes-datagen/generate/internal/run/runMode.js';

const args = (more: Partial<RunArgs> = {}): RunArgs => ({
  runName: 'r',
  outputRoot: 'data',
  resume: false,
  forceResume: false,
  samples: 1,
  batchSize: 10,
  numWorkers: 4,
  grace: 30,
  discardNoReasoning: true,
  quotaWait: 60,
  maxDepth: 1,
  replay: true,
  journal: true,
  ...more,
});

describe('run mode concurrency', () => {
  it('is num-workers x batch-size without -c, and -c when given (as in stream mode), capped by --max-concurrency', () => {
    expect(runSettings(args())?.concurrency).toBe(40);
    expect(runSettings(args({ concurrency: 64 }))?.concurrency).toBe(64);
    expect(runSettings(args({ concurrency: 64, maxConcurrency: 16 }))?.concurrency).toBe(16);
    expect(runSettings(args({ maxConcurrency: 16 }))?.concurrency).toBe(16);
  });

  it('checks --grace in both modes', () => {
    expect(() => runSettings(args({ runName: undefined, grace: -1 }))).toThrow(/--grace must be a number of seconds from 0 up/);
  });
});
