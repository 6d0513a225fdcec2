// Reasoning coverage (upstream's "Reasoning Coverage" summary, docs/rules.md#reasoning): gpt turns with a
// non-empty <think> or scratchpad block. A record without any would be dropped by the zero-reasoning
// filter (a warning); a stream where no turn has any is a model whose reasoning arrives where it is
// not read, or a run without reasoning_effort (a failure: nothing of it is usable for RL).
import { parsedGptHasReasoning } from '@hermes-datagen/core';
import { Examples, pct, type CheckResult, type Status } from './checkResult.js';
import { at, type Observed, type StreamCheck } from './observed.js';

export class ReasoningCheck implements StreamCheck {
  private trajectories = 0;
  private turns = 0;
  private withReasoning = 0;
  private readonly withoutAny = new Examples();

  public observe(item: Observed): void {
    if (item.kind !== 'trajectory') return;
    this.trajectories += 1;
    let own = 0;
    for (const turn of item.gptTurns) if (parsedGptHasReasoning(turn.parsed)) own += 1;
    this.turns += item.gptTurns.length;
    this.withReasoning += own;
    if (own === 0)
      this.withoutAny.add(at(item.place, `prompt_index ${item.record.prompt_index}: no gpt turn has reasoning (${item.gptTurns.length} gpt turns)`));
  }

  public result(): CheckResult {
    const none = this.withoutAny.count;
    let status: Status = 'PASS';
    if (this.turns > 0 && this.withReasoning === 0) status = 'FAIL';
    else if (none > 0) status = 'WARN';
    const summary =
      `${this.withReasoning} of ${this.turns} gpt turns have reasoning (${pct(this.withReasoning, this.turns)})` +
      (none > 0 ? `; ${none} of ${this.trajectories} trajectories have none (the zero-reasoning filter drops them)` : '');
    return {
      id: 'reasoning',
      title: 'reasoning coverage',
      status,
      summary,
      numbers: {
        total_assistant_turns: this.turns,
        turns_with_reasoning: this.withReasoning,
        turns_without_reasoning: this.turns - this.withReasoning,
        trajectories: this.trajectories,
        trajectories_without_reasoning: none,
      },
      problems: this.withoutAny.list(),
    };
  }
}
