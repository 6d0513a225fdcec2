// Reads a hermes-generate run directory back and checks what must always hold in one, whatever
// happened to the runs that wrote it: every line parses, each record id appears once over all batch
// files, trajectories.jsonl is the batch files' trajectories (tombstones left out) line for line,
// statistics.json counts exactly those records, and the checkpoint lists every record and tombstone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { checkSchema, type JsonObject, type Trajectory } from '@hermes-datagen/core';

export interface RunContents {
  readonly batchFiles: string[];
  /** Every line of every batch file, in file-number order. */
  readonly lines: string[];
  readonly records: Record<string, unknown>[];
  readonly trajectories: string[];
  readonly statistics: Record<string, unknown>;
  readonly checkpoint: { done: Record<string, { status: string }> };
  readonly failures: { id: string; error_class: string; line: number; reason: string; raw?: string }[];
  readonly manifest: { invocations: Record<string, unknown>[] } & Record<string, unknown>;
}

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

export function readRun(dir: string): RunContents {
  const batchFiles = readdirSync(dir)
    .filter((name) => /^batch_\d+\.jsonl$/.test(name))
    .sort((a, b) => Number(a.slice(6, -6)) - Number(b.slice(6, -6)));
  const all = batchFiles.flatMap((name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    expect(text === '' || text.endsWith('\n'), `${name} ends in a newline`).toBe(true);
    return lines(text);
  });
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  return {
    batchFiles,
    lines: all,
    records: all.map((line) => JSON.parse(line) as Record<string, unknown>),
    trajectories: lines(read('trajectories.jsonl')),
    statistics: JSON.parse(read('statistics.json')) as Record<string, unknown>,
    checkpoint: JSON.parse(read('checkpoint.json')) as RunContents['checkpoint'],
    failures: lines(read('failures.jsonl')).map((line) => JSON.parse(line) as RunContents['failures'][number]),
    manifest: JSON.parse(read('run.json')) as RunContents['manifest'],
  };
}

/** The run's records, each checked against the trajectory schema (a tombstone among them fails). */
export function trajectoriesOf(run: RunContents): (Trajectory & JsonObject)[] {
  return run.records.map((record, i) => {
    const checked = checkSchema('trajectory', record);
    if ('problem' in checked) throw new Error(`record ${i + 1} of the batch files ${checked.problem}`);
    return checked.value;
  });
}

/** The invariants of a run directory; returns the contents for further checks. */
export function expectRunInvariants(dir: string): RunContents {
  const run = readRun(dir);
  const ids = run.records.map((record) => record['id'] as string);
  expect(ids.length, 'record ids are unique over all batch files').toBe(new Set(ids).size);
  const kept = run.lines.filter((_, i) => !('discarded' in run.records[i]!));
  expect(run.trajectories, 'trajectories.jsonl is the batch files minus tombstones').toEqual(kept);
  const tombstones = run.records.filter((record) => 'discarded' in record);
  expect(run.statistics['trajectories']).toBe(kept.length);
  expect(run.statistics['discarded_no_reasoning']).toBe(tombstones.filter((t) => t['discarded'] === 'no_reasoning').length);
  expect(run.statistics['total_batches']).toBe(run.batchFiles.length);
  const apiCalls = kept.reduce((sum, line) => sum + (JSON.parse(line) as { api_calls: number }).api_calls, 0);
  expect((run.statistics['api_calls'] as { total: number }).total).toBe(apiCalls);
  expect(Object.keys(run.checkpoint.done).sort()).toEqual([...ids].sort());
  for (const failure of run.failures) expect(ids, 'a failed prompt has no record').not.toContain(failure.id);
  return run;
}
