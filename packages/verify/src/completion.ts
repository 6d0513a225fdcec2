// Every record completed (docs/rules.md#the-result-checklist): `completed: false` (the turn budget ran
// out) and `partial: true` (the run stopped early) are counted; a warning by default, a failure
// with --require-completed.
import { Examples, pct, type CheckResult } from './checkResult.js';
import { at, type Observed, type StreamCheck } from './observed.js';

export class CompletionCheck implements StreamCheck {
  private trajectories = 0;
  private notCompleted = 0;
  private partial = 0;
  private readonly examples = new Examples();

  public constructor(private readonly required: boolean) {}

  public observe(item: Observed): void {
    if (item.kind !== 'trajectory') return;
    this.trajectories += 1;
    const { completed, partial, prompt_index: index } = item.record;
    if (!completed) this.notCompleted += 1;
    if (partial) this.partial += 1;
    if (!completed || partial)
      this.examples.add(at(item.place, `prompt_index ${index}: ${[!completed && 'completed: false', partial && 'partial: true'].filter(Boolean).join(', ')}`));
  }

  public result(): CheckResult {
    const incomplete = this.examples.count;
    const summary =
      incomplete === 0
        ? `all ${this.trajectories} trajectories completed`
        : `${incomplete} of ${this.trajectories} (${pct(incomplete, this.trajectories)}) not completed: ${this.notCompleted} completed: false, ${this.partial} partial: true`;
    return {
      id: 'completed',
      title: `every record completed${this.required ? ' (--require-completed)' : ''}`,
      status: incomplete === 0 ? 'PASS' : this.required ? 'FAIL' : 'WARN',
      summary,
      numbers: { trajectories: this.trajectories, not_completed: this.notCompleted, partial: this.partial, incomplete },
      problems: this.examples.list(),
    };
  }
}
