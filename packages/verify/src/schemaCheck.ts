// Every line is a record of the schemas: a trajectory (schemas/trajectory.schema.json) or a
// tombstone (schemas/tombstone.schema.json). A line that is not JSON at all is bad input for the
// reader (exit 3, or skipped under --on-error skip, and then counted here as unreadable).
import { Examples, plural, type CheckResult } from './checkResult.js';
import { at, type Observed, type StreamCheck } from './observed.js';

export class SchemaCheck implements StreamCheck {
  private trajectories = 0;
  private tombstones = 0;
  private readonly invalid = new Examples();

  /** @param unreadable lines the reader skipped (--on-error skip), read when the result is made. */
  public constructor(private readonly unreadable: () => number) {}

  public observe(item: Observed): void {
    if (item.kind === 'trajectory') this.trajectories += 1;
    else if (item.kind === 'tombstone') this.tombstones += 1;
    else this.invalid.add(at(item.place, item.problem));
  }

  public result(): CheckResult {
    const unreadable = this.unreadable();
    const bad = this.invalid.count + unreadable;
    const valid = `${plural(this.trajectories, 'trajectory', 'trajectories')} and ${plural(this.tombstones, 'tombstone')} valid`;
    const summary = bad === 0 ? valid : `${valid}; ${this.invalid.count} break the schema${unreadable > 0 ? `, ${unreadable} lines unreadable (skipped)` : ''}`;
    return {
      id: 'schema',
      title: 'every record valid against the schema',
      status: bad === 0 ? 'PASS' : 'FAIL',
      summary,
      numbers: { trajectories: this.trajectories, tombstones: this.tombstones, invalid: this.invalid.count, unreadable_lines: unreadable },
      problems: this.invalid.list(),
    };
  }
}
