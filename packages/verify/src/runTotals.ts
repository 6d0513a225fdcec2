// The numbers statistics.json states, recomputed from a run's records: tool_stats sums, reasoning
// turns, completed / partial counts, tombstones per reason. Counts only.
import { parsedGptHasReasoning } from '@hermes-datagen/core';
import type { Observed } from './observed.js';

export interface ToolSums {
  count: number;
  success: number;
  failure: number;
}

export class RunTotals {
  public trajectories = 0;
  public completed = 0;
  public partial = 0;
  public assistantTurns = 0;
  public turnsWithReasoning = 0;
  public readonly tools = new Map<string, ToolSums>();
  public readonly discarded = new Map<string, number>();

  public add(item: Observed): void {
    if (item.kind === 'tombstone') {
      this.discarded.set(item.record.discarded, (this.discarded.get(item.record.discarded) ?? 0) + 1);
      return;
    }
    if (item.kind !== 'trajectory') return;
    const { record } = item;
    this.trajectories += 1;
    if (record.completed) this.completed += 1;
    if (record.partial) this.partial += 1;
    this.assistantTurns += item.gptTurns.length;
    for (const turn of item.gptTurns) if (parsedGptHasReasoning(turn.parsed)) this.turnsWithReasoning += 1;
    const stats = record.tool_stats;
    for (const name in stats) {
      const stat = stats[name];
      if (stat === undefined || (stat.count === 0 && stat.success === 0 && stat.failure === 0)) continue;
      const sums = this.tools.get(name) ?? { count: 0, success: 0, failure: 0 };
      sums.count += stat.count;
      sums.success += stat.success;
      sums.failure += stat.failure;
      this.tools.set(name, sums);
    }
  }
}
