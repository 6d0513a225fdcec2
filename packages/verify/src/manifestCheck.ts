// run.json matches the dataset (issue #9: the run's manifest records the dataset's content hash, so
// records are never silently mixed from two datasets), and checkpoint.json's dataset identity with
// it; failures.jsonl lists prompts that failed and still have no record.
import { isPlainObject } from '@hermes-datagen/core';
import { Examples, plural, shortList, type CheckResult, type Status } from './checkResult.js';
import type { Dataset } from './dataset.js';
import { FAILURES_FILE, MANIFEST_FILE, type BatchRow } from './runDirectory.js';
import type { RunFile } from './runFiles.js';

export function manifestCheck(manifest: RunFile<unknown>, checkpoint: RunFile<unknown>, dataset: Dataset | undefined): CheckResult {
  const result = (status: Status, summary: string, numbers: Record<string, unknown> = {}, problems: string[] = []): CheckResult => ({
    id: 'run.manifest',
    title: `${MANIFEST_FILE} (and the checkpoint) name the dataset given`,
    status,
    summary,
    numbers,
    problems,
  });
  const stated: { where: string; sha256?: unknown; rows?: unknown }[] = [];
  if (manifest.state === 'unreadable') return result('FAIL', manifest.problem);
  if (manifest.state === 'present') {
    const ds = isPlainObject(manifest.value) ? manifest.value['dataset'] : undefined;
    stated.push({ where: `${MANIFEST_FILE} dataset.sha256`, sha256: isPlainObject(ds) ? ds['sha256'] : undefined });
  }
  if (checkpoint.state === 'present' && isPlainObject(checkpoint.value) && isPlainObject(checkpoint.value['dataset'])) {
    const ds = checkpoint.value['dataset'];
    stated.push({ where: 'checkpoint.json dataset', sha256: ds['sha256'], rows: ds['valid_rows'] });
  }
  const numbers = {
    run_json: manifest.state,
    dataset_sha256: dataset?.sha256 ?? null,
    stated: stated.map((s) => ({ where: s.where, sha256: s.sha256 ?? null, rows: s.rows ?? null })),
  };
  const absent = manifest.state === 'absent' ? `no ${MANIFEST_FILE} (hermes-generate --run-name writes it)` : undefined;
  if (dataset === undefined) return result('WARN', [absent, 'give --dataset to compare the dataset with the run'].filter(Boolean).join('; '), numbers);
  const differences = new Examples();
  let compared = 0;
  for (const { where, sha256, rows } of stated) {
    if (typeof sha256 === 'string') {
      compared += 1;
      if (sha256 !== dataset.sha256) differences.add(`${where}: ${sha256}, --dataset ${dataset.path} has ${dataset.sha256}`);
    }
    if (typeof rows === 'number' && rows > 0) {
      compared += 1;
      if (rows !== dataset.rows) differences.add(`${where}.valid_rows: ${rows}, --dataset ${dataset.path} has ${dataset.rows} valid rows`);
    }
  }
  if (differences.count > 0)
    return result('FAIL', `the run was made from another dataset: ${differences.count} of ${compared} identities differ`, numbers, differences.list());
  if (compared === 0) return result('WARN', absent ?? `${MANIFEST_FILE} has no dataset hash (the run read its prompts from stdin?)`, numbers);
  return result(
    absent ? 'WARN' : 'PASS',
    [absent, `--dataset ${dataset.path} (sha256 ${dataset.sha256.slice(0, 12)}…) is the run's dataset (${compared} identities match)`]
      .filter(Boolean)
      .join('; '),
    numbers,
  );
}

export function failuresCheck(file: RunFile<unknown[]>, rows: ReadonlyMap<string, BatchRow>): CheckResult {
  const result = (status: Status, summary: string, numbers: Record<string, unknown> = {}, problems: string[] = []): CheckResult => ({
    id: 'run.failures',
    title: `${FAILURES_FILE}: failed prompts, each still without a record`,
    status,
    summary,
    numbers,
    problems,
  });
  if (file.state === 'absent') return result('WARN', `no ${FAILURES_FILE} (hermes-generate --run-name writes it; an upstream run has none)`);
  if (file.state === 'unreadable') return result('FAIL', file.problem);
  const stale = new Examples();
  const malformed = new Examples();
  const unresolved: number[] = [];
  file.value.forEach((entry, i) => {
    if (!isPlainObject(entry) || typeof entry['id'] !== 'string') {
      malformed.add(`${FAILURES_FILE}:${i + 1}: not a failure record (no "id")`);
      return;
    }
    const row = rows.get(entry['id']);
    if (row) stale.add(`${FAILURES_FILE}:${i + 1}: ${JSON.stringify(entry['id'])} failed once but has a row in ${row.file}`);
    else unresolved.push(typeof entry['prompt_index'] === 'number' ? entry['prompt_index'] : -1);
  });
  const status: Status = malformed.count > 0 ? 'FAIL' : stale.count > 0 ? 'WARN' : 'PASS';
  const summary =
    file.value.length === 0
      ? 'no failed prompts'
      : `${plural(unresolved.length, 'failed prompt')} without a record${unresolved.length > 0 ? ` (prompt_index ${shortList(unresolved.filter((n) => n >= 0).sort((a, b) => a - b))}; --resume runs them again)` : ''}` +
        (stale.count > 0 ? `; ${stale.count} listed although they have a row` : '') +
        (malformed.count > 0 ? `; ${malformed.count} lines are not failure records` : '');
  return result(status, summary, { entries: file.value.length, unresolved: unresolved.length, stale: stale.count, malformed: malformed.count }, [
    ...malformed.list(),
    ...stale.list(),
  ]);
}
