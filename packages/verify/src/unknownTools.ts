// No unknown tool names: every <tool_call>, every used tool_stats key and metadata.unknown_tools
// names a tool of the registry (upstream's merge drops records that break this, docs/rules.md#filters; hermes-filter
// drops them by default). tool_stats keys with count 0 are normalisation, not calls.
import type { ToolRegistry } from '@hermes-datagen/core';
import { Examples, plural, type CheckResult } from './checkResult.js';
import { at, type Observed, type StreamCheck } from './observed.js';

export class UnknownToolsCheck implements StreamCheck {
  private trajectories = 0;
  private readonly names = new Map<string, number>();
  private readonly records = new Examples();

  public constructor(private readonly registry: ToolRegistry) {}

  public observe(item: Observed): void {
    if (item.kind !== 'trajectory') return;
    this.trajectories += 1;
    const unknown = new Set<string>();
    const check = (name: string): void => {
      if (!this.registry.has(name)) unknown.add(name);
    };
    for (const turn of item.gptTurns) for (const call of turn.parsed.toolCalls) if (call.name !== null) check(call.name);
    for (const [name, stat] of item.usedTools) if (stat.count > 0) check(name);
    for (const name of item.record.metadata.unknown_tools ?? []) check(name);
    if (unknown.size === 0) return;
    for (const name of unknown) this.names.set(name, (this.names.get(name) ?? 0) + 1);
    this.records.add(at(item.place, `prompt_index ${item.record.prompt_index}: ${[...unknown].map((n) => JSON.stringify(n)).join(', ')}`));
  }

  public result(): CheckResult {
    const names = [...this.names].sort(([a], [b]) => a.localeCompare(b));
    return {
      id: 'unknown_tools',
      title: `no unknown tool names (registry: ${this.registry.source})`,
      status: names.length === 0 ? 'PASS' : 'FAIL',
      summary:
        names.length === 0
          ? `every tool named in ${plural(this.trajectories, 'trajectory', 'trajectories')} is in the registry`
          : `${this.records.count} of ${this.trajectories} trajectories name unknown tools: ${names.map(([n, k]) => `${JSON.stringify(n)} (${k})`).join(', ')}`,
      numbers: { trajectories: this.trajectories, records_with_unknown: this.records.count, unknown_names: Object.fromEntries(names) },
      problems: this.records.list(),
    };
  }
}
