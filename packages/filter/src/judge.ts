// One input record against the rules, and the reject line that says why it was dropped.
import type { DataRecord, TombstoneRecord, Trajectory } from '@hermes-datagen/core';
import { TrajectoryView, type Rule, type Verdict } from './trajectoryView.js';

/**
 * Null keeps the record. A tombstone row (a prompt discarded upstream, with `discarded`) is not a
 * trajectory, so it is never kept: it is dropped with reason "tombstone".
 */
export function judge(record: DataRecord<Trajectory> | TombstoneRecord, rules: readonly Rule[]): Verdict | null {
  if (record.kind === 'tombstone') return { reason: 'tombstone', detail: `a tombstone row (discarded: ${record.value.discarded})` };
  const view = new TrajectoryView(record.value);
  for (const rule of rules) {
    const verdict = rule(view);
    if (verdict) return verdict;
  }
  return null;
}

/**
 * The input line with "reason" and "detail" appended as its last keys. The record's own text is kept
 * byte for byte; the schemas forbid those keys in trajectories and tombstones, so they never collide.
 */
export function withVerdict(raw: string, verdict: Verdict): string {
  const body = raw.trimEnd();
  const open = body.slice(0, -1).trimEnd();
  const separator = open.endsWith('{') ? '' : ',';
  return `${open}${separator}"reason":${JSON.stringify(verdict.reason)},"detail":${JSON.stringify(verdict.detail)}}`;
}
