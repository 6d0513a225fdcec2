// The JSON files of a run directory, read through core's one file reader. For a checker a file that
// cannot be read is a finding, not a reason to stop: the outcome says which it was.
import { join } from 'node:path';
import { HermesError, loadOptionFileIfPresent } from '@hermes-datagen/core';

export type RunFile<T> =
  | { readonly state: 'present'; readonly value: T }
  | { readonly state: 'absent' }
  | { readonly state: 'unreadable'; readonly problem: string };

export function readRunFile<F extends 'json' | 'jsonl'>(dir: string, name: string, cwd: string, format: F): RunFile<F extends 'jsonl' ? unknown[] : unknown> {
  try {
    const value = loadOptionFileIfPresent({ option: 'run file', path: join(dir, name), cwd, role: 'input' }, format);
    return value === undefined ? { state: 'absent' } : { state: 'present', value: value as F extends 'jsonl' ? unknown[] : unknown };
  } catch (err) {
    if (err instanceof HermesError) return { state: 'unreadable', problem: err.message };
    throw err;
  }
}
