// tool_stats and tool_error_counts of one record, normalised over the registry (every registry name
// with zeros plus any other name called, keys sorted: core's normaliseToolStats), recomputed from the
// conversations when missing or asked for. Most records arrive already normalised (upstream and
// hermes-generate write them so): those are recognised without building anything, so the stage can
// pass their input line through unchanged.
import {
  normaliseToolStats,
  toolErrorCounts,
  toolStatsFromConversations,
  validator,
  type ToolNames,
  type ToolStats,
  type Trajectory,
} from '@hermes-datagen/core';

export interface NormalisedRecord {
  readonly record: Trajectory;
  /** False when the input already had exactly these keys and values: its line can be written as is. */
  readonly changed: boolean;
}

const STAT_KEYS = ['count', 'success', 'failure'] as const;

/** What the stage accepts: a trajectory that may lack the two fields it makes. */
type StatsInput = Omit<Trajectory, 'tool_stats' | 'tool_error_counts'> & Partial<Pick<Trajectory, 'tool_stats' | 'tool_error_counts'>>;

function hasToolFields(input: StatsInput): input is Trajectory {
  return input.tool_stats !== undefined && input.tool_error_counts !== undefined;
}

export class ToolStatsNormaliser {
  private readonly registrySorted: readonly string[];
  private readonly validate = validator('trajectory');

  public constructor(
    private readonly registry: ToolNames,
    /** Recompute from the conversations even when the record has tool_stats. */
    private readonly recompute: boolean,
  ) {
    this.registrySorted = [...new Set(registry.names)].sort();
  }

  /** The normalised record, or the reason the input is not a trajectory. */
  public normalise(value: Record<string, unknown>): NormalisedRecord | { problem: string } {
    const hasStats = Object.hasOwn(value, 'tool_stats');
    const hasErrorCounts = Object.hasOwn(value, 'tool_error_counts');
    // The two fields this stage makes may be missing; everything else must already be a trajectory.
    const problem = this.validate(hasStats && hasErrorCounts ? value : { tool_stats: {}, tool_error_counts: {}, ...value });
    if (problem) return { problem };
    // What the schema just accepted.
    const input = value as StatsInput;

    if (!this.recompute && hasToolFields(input) && this.isNormalised(input.tool_stats, input.tool_error_counts)) {
      return { record: input, changed: false };
    }
    const source = this.recompute || input.tool_stats === undefined ? toolStatsFromConversations(input.conversations) : input.tool_stats;
    const toolStats = normaliseToolStats(source, this.registry);
    const errorCounts = toolErrorCounts(source, this.registry);
    if (hasToolFields(input) && sameStats(input.tool_stats, toolStats) && sameErrorCounts(input.tool_error_counts, errorCounts)) {
      return { record: input, changed: false };
    }
    // The two fields replaced in place, or appended in schema order when the record had none.
    return { record: { ...input, tool_stats: toolStats, tool_error_counts: errorCounts }, changed: true };
  }

  /** True when normaliseToolStats and toolErrorCounts would give back exactly these objects. */
  private isNormalised(stats: ToolStats, errorCounts: Record<string, number>): boolean {
    const keys = Object.keys(stats);
    const expected = sameKeys(keys, this.registrySorted) ? this.registrySorted : [...new Set([...this.registrySorted, ...keys])].sort();
    return sameKeys(keys, expected) && sameKeys(Object.keys(errorCounts), expected) && keys.every((name) => errorCounts[name] === stats[name]!.failure);
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function sameStats(a: ToolStats, b: ToolStats): boolean {
  const keys = Object.keys(b);
  return sameKeys(Object.keys(a), keys) && keys.every((name) => STAT_KEYS.every((k) => a[name]![k] === b[name]![k]));
}

function sameErrorCounts(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(b);
  return sameKeys(Object.keys(a), keys) && keys.every((name) => a[name] === b[name]);
}
