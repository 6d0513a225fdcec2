// --batch-api's flags: run mode only, its other flags only with it, no pacing flags beside it, values checked.
import { describe, expect, it } from 'vitest';
import { UsageError } from '@hermes-datagen/core';
import { batchApiSettings, DEFAULT_BATCH_POLL_MS, DEFAULT_BATCH_RETRIES } from '@hermes-datagen/generate/internal/batchApi/batchApiOptions.js';

const off = { batchApi: false, batchPollMs: DEFAULT_BATCH_POLL_MS, batchRetries: DEFAULT_BATCH_RETRIES, cancelOnExit: false };
const on = { ...off, batchApi: true, runName: 'r' };

describe('batchApiSettings', () => {
  it('is undefined without --batch-api, and its settings with it', () => {
    expect(batchApiSettings(off)).toBeUndefined();
    expect(batchApiSettings({ ...on, batchPollMs: 50, batchRetries: 0, cancelOnExit: true })).toEqual({ pollMs: 50, retries: 0, cancelOnExit: true });
  });

  it('refuses --batch-api outside run mode', () => {
    expect(() => batchApiSettings({ ...on, runName: undefined })).toThrow(UsageError);
    expect(() => batchApiSettings({ ...on, runName: undefined })).toThrow(/run mode only.*--run-name/);
  });

  it('refuses its flags without it, naming them', () => {
    expect(() => batchApiSettings({ ...off, batchPollMs: 10, cancelOnExit: true })).toThrow('--batch-poll-ms, --cancel-on-exit work with --batch-api only');
    expect(() => batchApiSettings({ ...off, batchRetries: 1 })).toThrow('--batch-retries works with --batch-api only');
  });

  it('refuses --rpm and --tpm beside it', () => {
    expect(() => batchApiSettings({ ...on, rpm: 60 })).toThrow(/--rpm pace synchronous model calls/);
    expect(() => batchApiSettings({ ...on, rpm: 60, tpm: 1000 })).toThrow(/--rpm and --tpm/);
  });

  it('refuses bad values', () => {
    for (const batchPollMs of [0, -5, 1.5, Number.NaN]) expect(() => batchApiSettings({ ...on, batchPollMs })).toThrow(/--batch-poll-ms must be/);
    for (const batchRetries of [-1, 0.5]) expect(() => batchApiSettings({ ...on, batchRetries })).toThrow(/--batch-retries must be/);
  });
});
