// Batch numbers and the life of a batch file: created with its first record, closed when its last prompt settles.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchAppender } from '@hermes-datagen/generate/internal/run/batchAppender.js';
import { RunBatches } from '@hermes-datagen/generate/internal/run/runBatches.js';
import { tempDir } from '../../util/cli.js';

describe('run batches', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('numbers batch_size consecutive prompts a batch after the highest existing file', () => {
    const batches = new RunBatches(tempDir(), 3, 2);
    expect([0, 1, 2, 3, 4].map((sequence) => batches.assign(sequence))).toEqual([3, 3, 4, 4, 5]);
  });

  it('creates a file only with its first record, and closes it once its last prompt settled', async () => {
    const dir = tempDir();
    const close = vi.spyOn(BatchAppender.prototype, 'close');
    const batches = new RunBatches(dir, 0, 2);
    batches.assign(0);
    batches.assign(1);
    batches.assign(2);
    expect(readdirSync(dir)).toEqual([]);
    await (await batches.appender(0)).append('{"id":"a"}');
    expect(existsSync(join(dir, 'batch_0.jsonl'))).toBe(true);
    await batches.settle(0);
    expect(close).not.toHaveBeenCalled();
    await batches.settle(0);
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('keeps the batch still being filled open until intake has ended', async () => {
    const dir = tempDir();
    const close = vi.spyOn(BatchAppender.prototype, 'close');
    const batches = new RunBatches(dir, 0, 10);
    batches.assign(0);
    await (await batches.appender(0)).append('{"id":"a"}');
    await batches.settle(0);
    expect(close).not.toHaveBeenCalled();
    batches.intakeEnded();
    batches.assign(1);
    await batches.settle(0);
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('closes every file still open at the end', async () => {
    const close = vi.spyOn(BatchAppender.prototype, 'close');
    const batches = new RunBatches(tempDir(), 0, 1);
    batches.assign(0);
    batches.assign(1);
    await batches.appender(0);
    await batches.appender(1);
    await batches.closeAll();
    expect(close).toHaveBeenCalledTimes(2);
  });
});
