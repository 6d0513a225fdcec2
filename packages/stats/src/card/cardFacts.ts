// What a dataset card says, gathered in the one pass that writes the rows: the stream summary of exactly the
// records written (core's statistics/summary.ts: so the card's counts are statistics.json's), plus what that
// summary does not hold: served models (metadata.served_model), compression outcomes (metadata.compression),
// records left out, each run's generation settings (run.json) and the pipeline stages' counters (--stats-out).
import { findSecrets, isPlainObject, loadOptionFile, type OptionFile, type StatisticsSummary, type Trajectory } from '@hermes-datagen/core';
import { addTombstone, addTrajectory, emptySummary, finaliseSummary, type Tombstone } from '@hermes-datagen/core';

export interface CompressionFacts {
  /** Records per metadata.compression.status ("none" when a record has no compression metadata). */
  byStatus: Record<string, number>;
  byStrategy: Record<string, number>;
  /** Sums over the records whose counts are both known. */
  counted: number;
  tokensBefore: number;
  tokensAfter: number;
}

export interface RunSettings {
  run: string;
  /** Setting name -> value as shown (JSON for non-strings). */
  settings: [string, string][];
}

export interface StageCounters {
  file: string;
  command: string;
  counters: [string, number][];
}

export interface CardFacts {
  summary: StatisticsSummary;
  servedModels: Record<string, number>;
  compression: CompressionFacts;
  /** Records not in the dataset because they could not be written as rows (under --on-error skip). */
  recordsLeftOut: number;
  runs: RunSettings[];
  stages: StageCounters[];
}

export class CardFactsCollector {
  private readonly summary = emptySummary();
  private readonly servedModels = new Map<string, number>();
  private readonly compression: CompressionFacts = { byStatus: {}, byStrategy: {}, counted: 0, tokensBefore: 0, tokensAfter: 0 };
  public recordsLeftOut = 0;

  public addRecord(record: Trajectory): void {
    addTrajectory(this.summary, record);
    const served = (record.metadata as Record<string, unknown>)['served_model'];
    if (typeof served === 'string' && served !== '') this.servedModels.set(served, (this.servedModels.get(served) ?? 0) + 1);
    const compression = record.metadata.compression;
    const status = isPlainObject(compression) && typeof compression['status'] === 'string' ? compression['status'] : 'none';
    bump(this.compression.byStatus, status);
    if (!isPlainObject(compression)) return;
    if (typeof compression['strategy'] === 'string') bump(this.compression.byStrategy, compression['strategy']);
    const { tokens_before: before, tokens_after: after } = compression;
    if (typeof before === 'number' && typeof after === 'number') {
      this.compression.counted += 1;
      this.compression.tokensBefore += before;
      this.compression.tokensAfter += after;
    }
  }

  public addTombstone(tombstone: Tombstone): void {
    addTombstone(this.summary, tombstone);
  }

  public facts(runs: RunSettings[], stages: StageCounters[]): CardFacts {
    return {
      summary: finaliseSummary(this.summary),
      servedModels: Object.fromEntries([...this.servedModels].sort(([a], [b]) => (a < b ? -1 : 1))),
      compression: this.compression,
      recordsLeftOut: this.recordsLeftOut,
      runs,
      stages,
    };
  }
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

// Setting names that can hold a credential, or a URL that may carry one: never shown. The endpoint is named
// by run.json's endpoint.host instead; the key's fingerprint is left out too.
const HIDDEN_SETTING = /key|secret|password|passwd|auth|token$|fingerprint|header|url|proxy|cookie/i;

/** A run's generation settings from its run.json text: identity first, then the first invocation's flags. */
export function runSettings(run: string, manifestText: string): RunSettings {
  const manifest = JSON.parse(manifestText) as Record<string, unknown>;
  const shown: [string, string][] = [];
  const endpoint = isPlainObject(manifest['endpoint']) ? manifest['endpoint'] : {};
  const identity: [string, unknown][] = [
    ['run_name', manifest['run_name']],
    ['created_at', manifest['created_at']],
    ['model', endpoint['model']],
    ['endpoint_host', endpoint['host']],
    ['seed', manifest['seed']],
    ['shard', manifest['shard']],
    ['tool_registry_sha256', manifest['tool_registry_sha256']],
  ];
  const invocations = Array.isArray(manifest['invocations']) ? manifest['invocations'] : [];
  const first: unknown = invocations[0];
  if (isPlainObject(first)) identity.push(['hermes_datagen', first['hermes_datagen']]);
  const settings = isPlainObject(first) && isPlainObject(first['settings']) ? Object.entries(first['settings']) : [];
  const named = new Set(identity.map(([name]) => name));
  const flags = settings.filter(([name]) => !named.has(name)).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, value] of [...identity, ...flags]) {
    if (value === undefined || value === null || HIDDEN_SETTING.test(name)) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    // A value that looks like a credential (a key passed where a setting belongs) is left out whatever its name.
    if (findSecrets(text).length === 0) shown.push([name, text]);
  }
  return { run, settings: shown };
}

/** A pipeline stage's --stats-out file: its command and numeric counters. */
export function stageCounters(file: OptionFile): StageCounters {
  const value = loadOptionFile(file, 'json');
  const counters = isPlainObject(value) && isPlainObject(value['counters']) ? value['counters'] : {};
  return {
    file: file.path,
    command: isPlainObject(value) && typeof value['command'] === 'string' ? value['command'] : 'unknown',
    counters: Object.entries(counters).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  };
}
