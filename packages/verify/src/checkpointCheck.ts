// checkpoint.json agrees with the batch files (docs/rules.md#the-result-checklist: "fewer records after resume means
// the checkpoint is wrong"). Ours (schemas/checkpoint.schema.json) maps record ids to written or
// discarded; upstream's lists completed prompt indices. An entry without its row is a claim of work
// that is not on disk (a failure); rows the checkpoint does not list yet are normal for a run that
// was stopped between checkpoint writes (a warning: its next resume rebuilds the checkpoint).
import { isPlainObject, validator, type Checkpoint } from '@hermes-datagen/core';
import { Examples, type CheckResult, type Status } from './checkResult.js';
import { CHECKPOINT_FILE, type BatchRow } from './runDirectory.js';
import type { RunFile } from './runFiles.js';

const TITLE = `${CHECKPOINT_FILE} agrees with the batch files`;

export function checkpointCheck(file: RunFile<unknown>, rows: ReadonlyMap<string, BatchRow>): CheckResult {
  const result = (status: Status, summary: string, numbers: Record<string, unknown> = {}, problems: string[] = []): CheckResult => ({
    id: 'run.checkpoint',
    title: TITLE,
    status,
    summary,
    numbers,
    problems,
  });
  if (file.state === 'absent') return result('WARN', `no ${CHECKPOINT_FILE} (a run writes it during and at the end of each invocation)`);
  if (file.state === 'unreadable') return result('FAIL', file.problem);
  const value = file.value;
  if (isPlainObject(value) && Array.isArray(value['completed_prompts'])) return upstreamCheckpoint(value['completed_prompts'], rows, result);
  const problem = validator('checkpoint')(value);
  if (problem !== null) return result('FAIL', `${CHECKPOINT_FILE} ${problem}`);
  const checkpoint = value as Checkpoint;
  const wrong = new Examples();
  let listed = 0;
  for (const [id, entry] of Object.entries(checkpoint.done)) {
    listed += 1;
    const row = rows.get(id);
    const claim = `done[${JSON.stringify(id)}]`;
    if (!row) wrong.add(`${claim} (${entry.status}) has no row in any batch file`);
    else if (row.discarded !== (entry.status === 'discarded'))
      wrong.add(`${claim} says ${entry.status}, ${row.file} holds a ${row.discarded ? 'tombstone' : 'trajectory'}`);
    else if (row.promptIndex !== entry.prompt_index) wrong.add(`${claim} has prompt_index ${entry.prompt_index}, its row in ${row.file} ${row.promptIndex}`);
    else if (entry.shard !== undefined && entry.shard !== row.file) wrong.add(`${claim} names shard ${entry.shard}, the row is in ${row.file}`);
  }
  const behind = new Examples();
  for (const [key, row] of rows) if (!Object.hasOwn(checkpoint.done, key)) behind.add(`${JSON.stringify(key)} (${row.file}) is not in the checkpoint`);
  const status: Status = wrong.count > 0 ? 'FAIL' : behind.count > 0 ? 'WARN' : 'PASS';
  const summary =
    `${listed} entries for ${rows.size} batch rows` +
    (wrong.count > 0 ? `; ${wrong.count} disagree with the batch files` : '') +
    (behind.count > 0 ? `; ${behind.count} rows not listed yet (stopped between checkpoint writes?)` : '') +
    (status === 'PASS' ? ': every entry matches its row' : '');
  return result(status, summary, { entries: listed, batch_rows: rows.size, disagreeing: wrong.count, rows_not_listed: behind.count }, [
    ...wrong.list(),
    ...behind.list(),
  ]);
}

function upstreamCheckpoint(
  completed: unknown[],
  rows: ReadonlyMap<string, BatchRow>,
  result: (status: Status, summary: string, numbers?: Record<string, unknown>, problems?: string[]) => CheckResult,
): CheckResult {
  const onDisk = new Set<number>();
  for (const row of rows.values()) onDisk.add(row.promptIndex);
  const claimed = new Set(completed.filter((n): n is number => Number.isInteger(n)));
  const wrong = new Examples();
  for (const index of claimed) if (!onDisk.has(index)) wrong.add(`completed_prompts lists ${index}, which has no row in any batch file`);
  const behind = new Examples();
  for (const index of onDisk) if (!claimed.has(index)) behind.add(`prompt_index ${index} has a row but is not in completed_prompts`);
  const status: Status = wrong.count > 0 ? 'FAIL' : behind.count > 0 ? 'WARN' : 'PASS';
  return result(
    status,
    `upstream checkpoint: ${claimed.size} completed prompts, ${onDisk.size} prompts with rows` +
      (wrong.count > 0 ? `; ${wrong.count} without a row` : '') +
      (behind.count > 0 ? `; ${behind.count} not listed` : ''),
    { completed_prompts: claimed.size, prompts_with_rows: onDisk.size, without_row: wrong.count, not_listed: behind.count },
    [...wrong.list(), ...behind.list()],
  );
}
