import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTombstone, addTrajectory, emptySummary, type Tombstone, type Trajectory } from '@hermes-datagen/core';
import { listBatchFiles } from '@hermes-datagen/generate/internal/run/batchFiles.js';
import { writeRunOutputs } from '@hermes-datagen/generate/internal/run/runOutputs.js';
import { tempDir, writeFiles } from '../../util/cli.js';
import { trajectory } from '../../util/trajectories.js';

const FACTS = { run_name: 'r', distribution: 'default', total_prompts: 3, batch_size: 10, model: 'test/model', duration_seconds: 1 };

/** statistics.json without the moment it was written. */
function statistics(dir: string): unknown {
  const { completed_at: _, ...rest } = JSON.parse(readFileSync(join(dir, 'statistics.json'), 'utf8')) as Record<string, unknown>;
  return rest;
}

describe('writeRunOutputs', () => {
  it('gives the same outputs from the records counted as they were written as from reading the files back', async () => {
    const stone: Tombstone = { id: 'p1-b', prompt_index: 1, discarded: 'no_reasoning', prompt: 'x', metadata: { trajectory: trajectory({ id: 'p1-b' }) } };
    const records: (Trajectory | Tombstone)[] = [
      { id: 'p0-a', ...trajectory({ prompt_index: 0 }) },
      stone,
      // A trajectory whose id holds the opening of a tombstone line is still a trajectory.
      { id: 'p2-","prompt_index":2,"discarded":"x', ...trajectory({ prompt_index: 2, completed: false, partial: true }) },
    ];
    const dir = tempDir();
    writeFiles(dir, { 'batch_0.jsonl': `${records.map((record) => JSON.stringify(record)).join('\n')}\n` });
    const files = await listBatchFiles(dir);

    const read = await writeRunOutputs(dir, files, FACTS);
    const readMerge = readFileSync(join(dir, 'trajectories.jsonl'), 'utf8');
    const readStatistics = statistics(dir);
    expect([read.trajectories, read.tombstones]).toEqual([2, 1]);

    const summary = emptySummary();
    for (const record of records) {
      if ('discarded' in record) addTombstone(summary, record);
      else addTrajectory(summary, record);
    }
    const counted = await writeRunOutputs(dir, files, FACTS, { files: new Set(['batch_0.jsonl']), summary });
    expect(counted).toEqual(read);
    expect(readFileSync(join(dir, 'trajectories.jsonl'), 'utf8')).toBe(readMerge);
    expect(statistics(dir)).toEqual(readStatistics);
  });

  it('copies a fresh file of trajectories only byte for byte, and reads one line by line when a member named discarded may be a tombstone', async () => {
    // A trajectory with a nested member named discarded: its file takes the line-by-line way, and the trajectory is kept.
    const nested = {
      id: 'p1-n',
      ...trajectory({ prompt_index: 1, metadata: { batch_num: 0, timestamp: 't', model: 'test/model', extra: { a: 1, discarded: 'no' } } }),
    };
    const stone: Tombstone = { id: 'p3-s', prompt_index: 3, discarded: 'no_reasoning', prompt: 'x', metadata: { trajectory: trajectory({ id: 'p3-s' }) } };
    const batches: (Trajectory | Tombstone)[][] = [
      [
        { id: 'p0-a', ...trajectory({ prompt_index: 0 }) },
        { id: 'p4-b', ...trajectory({ prompt_index: 4, completed: false, partial: true }) },
      ],
      [nested],
      [{ id: 'p2-c', ...trajectory({ prompt_index: 2 }) }, stone],
    ];
    const text = batches.map((records) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const dir = tempDir();
    writeFiles(dir, Object.fromEntries(text.map((content, i) => [`batch_${i}.jsonl`, content])));
    const files = await listBatchFiles(dir);
    const read = await writeRunOutputs(dir, files, FACTS);
    const readStatistics = statistics(dir);
    expect([read.trajectories, read.tombstones]).toEqual([4, 1]);

    const summary = emptySummary();
    for (const record of batches.flat()) {
      if ('discarded' in record) addTombstone(summary, record);
      else addTrajectory(summary, record);
    }
    const counted = await writeRunOutputs(dir, files, FACTS, { files: new Set(files.map((file) => file.name)), summary });
    expect(counted).toEqual(read);
    expect(statistics(dir)).toEqual(readStatistics);
    const lines = text
      .join('')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('{"id":"p3-s"'));
    expect(readFileSync(join(dir, 'trajectories.jsonl'), 'utf8')).toBe(`${lines.join('\n')}\n`);
  });
});
