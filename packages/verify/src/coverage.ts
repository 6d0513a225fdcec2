// Record count = dataset rows x samples (docs/rules.md#the-result-checklist: "trajectories.jsonl line count equals
// the dataset line count"), checked per prompt so that a missing prompt and an extra one do not
// cancel out: every prompt_index of the dataset has exactly `samples` rows (trajectories, or
// tombstones for intentional discards), none is out of range, no id appears twice, and a record's id
// belongs to the dataset row at its prompt_index (a changed dataset shows here). State: one counter
// per dataset row and the set of ids seen. Rows named in --dropped files (what a stage before this one
// dropped on purpose, dropped.ts) are accounted for by their reason, so only truly missing, duplicated or
// extra rows fail. delegate_task's sub-agent records (metadata.parent_id) share their prompt's
// prompt_index but are no row of the dataset: they are counted apart (their ids still unique), and
// never stand in for a missing root record.
import type { Place } from '@hermes-datagen/core';
import { Examples, plural, shortList, type CheckResult, type Status } from './checkResult.js';
import type { DroppedFile } from './dropped.js';
import { at, parentOf, rowKey, type Observed, type StreamCheck } from './observed.js';

export interface Expectation {
  /** Dataset rows, when known. */
  readonly rows: number | undefined;
  /** Where `rows` comes from, for the report: "--dataset prompts.jsonl". */
  readonly rowsSource: string | undefined;
  readonly samples: number;
  /** Each row's prompt id (core's promptId), when the dataset was read. */
  readonly rowIds: readonly string[] | undefined;
}

const LISTED_INDICES = 20;

export class CoverageCheck implements StreamCheck {
  private trajectories = 0;
  /** Records of delegate_task's sub-agents: part of their prompt's chain, not rows of the dataset. */
  private subAgents = 0;
  private droppedSubAgents = 0;
  private tombstones = 0;
  private runTombstones = 0;
  private readonly perRow: Uint32Array | undefined;
  private readonly ids = new Set<string>();
  /** Keys of the stream's tombstones, ids or `#<prompt_index>`, so the run's are not counted again. */
  private readonly streamTombstones = new Set<string>();
  private readonly duplicates = new Examples();
  private readonly outOfRange = new Examples();
  private readonly foreignIds = new Examples();
  private readonly noIndex = new Examples();
  private dropped = 0;
  private droppedUnkeyed = 0;
  /** Per --dropped file, its rows by reason. */
  private readonly droppedBy = new Map<string, Map<string, number>>();
  /** Where each dropped row's key was dropped, for a record that turns up again. */
  private readonly droppedKeys = new Map<string, string>();

  public constructor(private readonly expect: Expectation) {
    this.perRow = expect.rows === undefined ? undefined : new Uint32Array(expect.rows);
  }

  public observe(item: Observed): void {
    const value: { id?: unknown; prompt_index?: unknown } = item.kind === 'invalid' ? item.value : item.record;
    if (parentOf(value) !== undefined) {
      this.subAgents += 1;
      this.checkUnique(value, item.place);
      return;
    }
    if (item.kind === 'trajectory') this.trajectories += 1;
    else if (item.kind === 'tombstone') this.tombstones += 1;
    if (item.kind === 'tombstone') {
      const key = rowKey(value);
      if (key !== undefined) this.streamTombstones.add(key);
    }
    this.count(value, item.place);
  }

  /** The rows a --dropped file accounts for (after the stream: a row both there and here is a duplicate). */
  public addDropped(file: DroppedFile): void {
    const reasons = this.droppedBy.get(file.path) ?? new Map<string, number>();
    this.droppedBy.set(file.path, reasons);
    this.droppedUnkeyed += file.unkeyed;
    for (const row of file.rows) {
      if (row.subAgent) {
        this.droppedSubAgents += 1;
        this.checkUnique({ id: row.id }, row.place, row.reason);
        continue;
      }
      this.dropped += 1;
      reasons.set(row.reason, (reasons.get(row.reason) ?? 0) + 1);
      this.count({ id: row.id, prompt_index: row.promptIndex }, row.place, row.reason);
      if (row.key !== undefined) this.droppedKeys.set(row.key, `${at(row.place)} (${row.reason})`);
    }
  }

  /** A tombstone of the run directory's batch files that the stream and the --dropped files did not hold (trajectories.jsonl has none). */
  public addRunTombstone(value: { id?: unknown; prompt_index?: unknown }, place: Place): void {
    const key = rowKey(value);
    if (key !== undefined && (this.ids.has(key) || this.streamTombstones.has(key) || this.droppedKeys.has(key))) return;
    this.runTombstones += 1;
    this.count(value, place);
  }

  /** Prompt indices with fewer rows than samples (empty when the rows are unknown). */
  public missingIndices(): number[] {
    const missing: number[] = [];
    this.perRow?.forEach((n, index) => {
      if (n < this.expect.samples) missing.push(index);
    });
    return missing;
  }

  public result(): CheckResult {
    const { rows, samples, rowsSource } = this.expect;
    const missing = this.missingIndices();
    let missingRecords = 0;
    const over: number[] = [];
    let extraRecords = this.outOfRange.count;
    this.perRow?.forEach((n, index) => {
      if (n < samples) missingRecords += samples - n;
      if (n > samples) {
        over.push(index);
        extraRecords += n - samples;
      }
    });
    const bad = missing.length + over.length + this.outOfRange.count + this.duplicates.count + this.foreignIds.count + this.noIndex.count;
    const status: Status = bad > 0 ? 'FAIL' : 'PASS';
    const discarded = this.tombstones + this.runTombstones;
    const present = this.trajectories + discarded;
    const found = present + this.dropped;
    let accounted = `${this.trajectories} trajectories, ${discarded} discarded`;
    if (this.droppedBy.size > 0) {
      const byFile = [...this.droppedBy].map(([path, reasons]) => `${path}: ${reasonList(reasons)}`).join('; ');
      accounted = `${present} present (${accounted}), ${this.dropped} dropped (${byFile})${rows === undefined ? '' : `, ${missingRecords} missing`}`;
    }
    const parts: string[] = [];
    const rowsText = this.droppedBy.size > 0 ? `${plural(found, 'row')}: ${accounted}` : `${plural(found, 'row')} (${accounted})`;
    if (rows === undefined) parts.push(`${rowsText}; dataset rows unknown, give --dataset to find missing prompts`);
    else parts.push(`${found} of ${rows * samples} expected (${rows} rows x ${samples} samples${rowsSource ? `, rows from ${rowsSource}` : ''}): ${accounted}`);
    if (this.subAgents + this.droppedSubAgents > 0) {
      const droppedText = this.droppedSubAgents > 0 ? ` (and ${this.droppedSubAgents} in --dropped files)` : '';
      parts.push(`${plural(this.subAgents, 'sub-agent record')}${droppedText} (delegate_task), counted apart`);
    }
    if (this.droppedUnkeyed > 0) parts.push(`${plural(this.droppedUnkeyed, 'line')} of --dropped files name no prompt_index (not counted)`);
    if (missing.length > 0) parts.push(`missing ${plural(missingRecords, 'record')} of prompt_index ${shortList(missing, missing.length, LISTED_INDICES)}`);
    if (over.length > 0) parts.push(`too many records for prompt_index ${shortList(over, over.length, LISTED_INDICES)}`);
    if (this.outOfRange.count > 0) parts.push(`${this.outOfRange.count} with a prompt_index outside the dataset`);
    if (this.duplicates.count > 0) parts.push(`${this.duplicates.count} duplicate ids`);
    if (this.foreignIds.count > 0) parts.push(`${this.foreignIds.count} ids not of the dataset row at their prompt_index`);
    if (this.noIndex.count > 0) parts.push(`${this.noIndex.count} without an integer prompt_index`);
    return {
      id: 'count',
      title: 'record count = dataset rows x samples (per prompt), no duplicates',
      status,
      summary: parts.join('; '),
      numbers: {
        rows: rows ?? null,
        samples,
        expected: rows === undefined ? null : rows * samples,
        trajectories: this.trajectories,
        sub_agent_records: this.subAgents,
        dropped_sub_agent_records: this.droppedSubAgents,
        tombstones: discarded,
        dropped: this.dropped,
        dropped_by_file: Object.fromEntries([...this.droppedBy].map(([path, reasons]) => [path, Object.fromEntries(reasons)])),
        dropped_unkeyed: this.droppedUnkeyed,
        missing_records: missingRecords,
        missing_prompt_indices: missing.slice(0, LISTED_INDICES),
        missing_prompts: missing.length,
        extra_records: extraRecords,
        extra_prompt_indices: over.slice(0, LISTED_INDICES),
        out_of_range: this.outOfRange.count,
        duplicate_ids: this.duplicates.count,
        foreign_ids: this.foreignIds.count,
      },
      problems: [...this.duplicates.list(), ...this.outOfRange.list(), ...this.foreignIds.list(), ...this.noIndex.list()],
    };
  }

  /** An id seen twice is a duplicate, whatever the rows it belongs to. */
  private checkUnique(value: { id?: unknown }, place: Place, dropped?: string): void {
    if (typeof value.id !== 'string' || value.id === '') return;
    const key = value.id;
    // One lookup per record: the set grows by one unless the id was there already.
    const seen = this.ids.size;
    this.ids.add(key);
    if (this.ids.size === seen) {
      const earlier = this.droppedKeys.get(key);
      const what = dropped === undefined ? '' : ` (dropped: ${dropped})`;
      this.duplicates.add(at(place, `id ${JSON.stringify(key)}${what} appeared before${earlier === undefined ? '' : `, dropped at ${earlier}`}`));
    }
  }

  /** `dropped`: the reason, for a row of a --dropped file. */
  private count(value: { id?: unknown; prompt_index?: unknown }, place: Place, dropped?: string): void {
    const index = value.prompt_index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
      this.noIndex.add(at(place, 'no integer prompt_index'));
      return;
    }
    const key = rowKey(value);
    if (key !== undefined && typeof value.id === 'string') {
      this.checkUnique(value, place, dropped);
      const rowId = this.expect.rowIds?.[index];
      if (rowId !== undefined && !belongsTo(key, rowId, this.expect.samples)) {
        this.foreignIds.add(at(place, `id ${JSON.stringify(key)} at prompt_index ${index}, whose dataset row has id ${JSON.stringify(rowId)}`));
      }
    }
    if (this.perRow === undefined) return;
    if (index >= this.perRow.length) this.outOfRange.add(at(place, `prompt_index ${index} is outside the dataset's ${this.perRow.length} rows`));
    else this.perRow[index] = (this.perRow[index] ?? 0) + 1;
  }
}

/** `zero_reasoning 3, hallucinated_tool 2`, most first. */
function reasonList(reasons: ReadonlyMap<string, number>): string {
  if (reasons.size === 0) return 'none';
  return [...reasons]
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
}

/** hermes-generate's record ids: the prompt id, or `<prompt id>#s<k>` for sample k of several. */
function belongsTo(id: string, rowId: string, samples: number): boolean {
  if (id === rowId) return true;
  if (!id.startsWith(`${rowId}#s`)) return false;
  const sample = Number(id.slice(rowId.length + 2));
  return Number.isInteger(sample) && sample >= 0 && sample < samples;
}
