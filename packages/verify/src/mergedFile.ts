// trajectories.jsonl = the union of the batch files minus tombstones (docs/record-format.md#run-directories):
// each of its lines is a trajectory row of a batch file, byte for byte (compared by a 48-bit line
// hash), none twice, and every trajectory row of the batch files is there.
import type { Place } from '@hermes-datagen/core';
import { Examples, type CheckResult } from './checkResult.js';
import { at, rowKey } from './observed.js';
import { lineHash, TRAJECTORIES_FILE, type BatchRow } from './runDirectory.js';

export class MergedFileCheck {
  private lines = 0;
  private readonly unknown = new Examples();
  private readonly tombstoned = new Examples();
  private readonly changed = new Examples();
  private readonly twice = new Examples();
  private readonly unreadable = new Examples();

  public constructor(private readonly rows: Map<string, BatchRow>) {}

  public observeLine(value: Record<string, unknown>, bytes: Buffer, place: Place): void {
    this.lines += 1;
    const key = rowKey(value);
    const row = key === undefined ? undefined : this.rows.get(key);
    if (key === undefined || row === undefined) {
      this.unknown.add(at(place, `${key === undefined ? 'a row without id or prompt_index' : JSON.stringify(key)} is in no batch file`));
      return;
    }
    if (row.discarded) this.tombstoned.add(at(place, `${JSON.stringify(key)} is a tombstone in ${row.file}`));
    else if (row.merged) this.twice.add(at(place, `${JSON.stringify(key)} appears twice`));
    else if (row.hash !== lineHash(bytes)) this.changed.add(at(place, `${JSON.stringify(key)} differs from its line in ${row.file}`));
    row.merged = true;
  }

  public observeUnreadable(text: string): void {
    this.unreadable.add(text);
  }

  /** @param present false when the run has no trajectories.jsonl */
  public result(present: boolean): CheckResult {
    const missing = new Examples();
    let trajectoryRows = 0;
    for (const [key, row] of this.rows) {
      if (row.discarded) continue;
      trajectoryRows += 1;
      if (!row.merged) missing.add(`${JSON.stringify(key)} (${row.file}) is not in ${TRAJECTORIES_FILE}`);
    }
    const wrong = this.unknown.count + this.tombstoned.count + this.changed.count + this.twice.count + this.unreadable.count + missing.count;
    const numbers = {
      present,
      lines: this.lines,
      batch_trajectories: trajectoryRows,
      not_in_batches: this.unknown.count,
      tombstones: this.tombstoned.count,
      changed: this.changed.count,
      duplicated: this.twice.count,
      unreadable: this.unreadable.count,
      missing: missing.count,
    };
    const title = `${TRAJECTORIES_FILE} = union of the batch files minus tombstones`;
    if (!present) {
      return {
        id: 'run.trajectories',
        title,
        status: 'WARN',
        summary: `no ${TRAJECTORIES_FILE}: the run has not finished (it is written at the end of each invocation)`,
        numbers,
        problems: [],
      };
    }
    const parts = [`${this.lines} lines for ${trajectoryRows} trajectory rows of the batch files`];
    if (missing.count > 0) parts.push(`${missing.count} missing`);
    if (this.unknown.count > 0) parts.push(`${this.unknown.count} in no batch file`);
    if (this.changed.count > 0) parts.push(`${this.changed.count} changed`);
    if (this.twice.count > 0) parts.push(`${this.twice.count} twice`);
    if (this.tombstoned.count > 0) parts.push(`${this.tombstoned.count} tombstones`);
    if (this.unreadable.count > 0) parts.push(`${this.unreadable.count} unreadable lines`);
    return {
      id: 'run.trajectories',
      title,
      status: wrong === 0 ? 'PASS' : 'FAIL',
      summary: wrong === 0 ? `${parts[0]}: identical` : parts.join('; '),
      numbers,
      problems: [...missing.list(), ...this.unknown.list(), ...this.changed.list(), ...this.twice.list(), ...this.tombstoned.list(), ...this.unreadable.list()],
    };
  }
}
