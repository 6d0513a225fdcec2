// Tool distribution plausibility (docs/rules.md#the-result-checklist: "all terminal and no file suggests the task
// type does not match the tools"). What a record offers is read from its system turn's <tools> list
// (what the model was really shown), or, without one, from its toolsets_used. Warnings only: an odd
// distribution is a question about the run's design, not broken data.
//   - a tool offered in most records but never called, grouped by toolset;
//   - a tool called in a record that did not offer it.
import { offeredToolNames, type ToolRegistry, type Trajectory } from '@hermes-datagen/core';
import { Examples, pct, plural, type CheckResult } from './checkResult.js';
import { at, type Observed, type StreamCheck } from './observed.js';

/** Records needed before "offered in most records, never called" means anything. */
export const MIN_RECORDS_FOR_DISTRIBUTION = 10;
/** "Most records": more than this share. */
const MOST = 0.5;
/** Distinct system turns whose tool lists are remembered (runs use a handful of toolset combinations). */
const OFFER_CACHE_SIZE = 256;

export class ToolDistributionCheck implements StreamCheck {
  private trajectories = 0;
  private withOffer = 0;
  private readonly offered = new Map<string, number>();
  private readonly called = new Map<string, number>();
  private readonly notOffered = new Examples();
  /** Tool lists read from system turns, by the turn's length (compared whole on a hit). */
  private readonly offerCache = new Map<number, { readonly system: string; readonly offer: readonly string[] | null }[]>();

  public constructor(private readonly registry: ToolRegistry) {}

  public observe(item: Observed): void {
    if (item.kind !== 'trajectory') return;
    this.trajectories += 1;
    const offer = this.offerOf(item.record);
    if (offer !== null) {
      this.withOffer += 1;
      for (const name of offer) this.offered.set(name, (this.offered.get(name) ?? 0) + 1);
    }
    for (const [name, stat] of item.usedTools) {
      if (stat.count === 0) continue;
      this.called.set(name, (this.called.get(name) ?? 0) + stat.count);
      if (offer !== null && !offer.includes(name))
        this.notOffered.add(at(item.place, `prompt_index ${item.record.prompt_index} calls ${name}, which it was not offered`));
    }
  }

  public result(): CheckResult {
    const unused = this.unusedTools();
    const byToolset = new Map<string, string[]>();
    for (const name of unused) {
      const toolset = this.registry.toolsetOf(name) ?? 'unregistered';
      byToolset.set(toolset, [...(byToolset.get(toolset) ?? []), name]);
    }
    const problems = [...byToolset].map(
      ([toolset, names]) => `${toolset}: ${names.map((n) => `${n} (offered in ${pct(this.offered.get(n) ?? 0, this.withOffer)})`).join(', ')} never called`,
    );
    const usedToolsets = [...new Set([...this.called.keys()].map((name) => this.registry.toolsetOf(name) ?? 'unregistered'))].sort();
    let summary: string;
    if (this.trajectories < MIN_RECORDS_FOR_DISTRIBUTION)
      summary = `${plural(this.trajectories, 'trajectory', 'trajectories')}: too few to judge the distribution (< ${MIN_RECORDS_FOR_DISTRIBUTION})`;
    else if (this.called.size === 0) summary = `no tool was called in ${this.trajectories} trajectories`;
    else
      summary = `calls went to ${usedToolsets.join(', ')}${byToolset.size > 0 ? `; offered in most records but never called: ${[...byToolset.keys()].join(', ')}` : ''}`;
    if (this.notOffered.count > 0) summary += `; ${plural(this.notOffered.count, 'call')} of a tool the record did not offer`;
    const noCalls = this.trajectories >= MIN_RECORDS_FOR_DISTRIBUTION && this.called.size === 0 && this.offered.size > 0;
    return {
      id: 'tool_distribution',
      title: 'tool distribution plausible for what was offered',
      status: problems.length > 0 || this.notOffered.count > 0 || noCalls ? 'WARN' : 'PASS',
      summary,
      numbers: {
        trajectories: this.trajectories,
        with_known_offer: this.withOffer,
        called: Object.fromEntries([...this.called].sort(([a], [b]) => a.localeCompare(b))),
        offered_in_records: Object.fromEntries([...this.offered].sort(([a], [b]) => a.localeCompare(b))),
        offered_but_never_called: unused,
        calls_not_offered: this.notOffered.count,
      },
      problems: [...problems, ...this.notOffered.list()],
    };
  }

  private unusedTools(): string[] {
    if (this.trajectories < MIN_RECORDS_FOR_DISTRIBUTION || this.withOffer === 0) return [];
    return [...this.offered]
      .filter(([name, n]) => n / this.withOffer > MOST && !this.called.has(name))
      .map(([name]) => name)
      .sort();
  }

  private offerOf(record: Trajectory): readonly string[] | null {
    const system = record.conversations[0]?.from === 'system' ? record.conversations[0].value : undefined;
    if (system === undefined) return this.toolsetTools(record.toolsets_used);
    // Keyed cheaply (hashing a 10 KB system turn per record costs more than the check), then
    // compared whole, so two prompts of equal length never mix. The list comes from the system turn
    // alone; toolsets_used is read only when it has none, so it is no part of the key.
    const key = system.length;
    let entries = this.offerCache.get(key);
    let entry = entries?.find((e) => e.system === system);
    if (entry === undefined) {
      if (this.offerCache.size >= OFFER_CACHE_SIZE) this.offerCache.clear();
      entry = { system, offer: offeredToolNames(system) };
      entries = [...(this.offerCache.get(key) ?? []), entry];
      this.offerCache.set(key, entries);
    }
    return entry.offer ?? this.toolsetTools(record.toolsets_used);
  }

  private toolsetTools(toolsets: readonly string[]): readonly string[] | null {
    if (toolsets.length === 0 || !toolsets.every((t) => this.registry.hasToolset(t))) return null;
    return this.registry.toolsOf(toolsets);
  }
}
