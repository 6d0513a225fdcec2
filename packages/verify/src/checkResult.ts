// What every check reports: a status, one line with the numbers behind it, the numbers themselves
// (for --json), and a bounded list of located examples, so a check over millions of records holds
// a few lines of evidence, not the records.

export type Status = 'PASS' | 'WARN' | 'FAIL';

export interface CheckResult {
  /** Stable name, e.g. `count`, `run.checkpoint`: what --json and tests key on. */
  readonly id: string;
  /** What the check asks, e.g. "record count = dataset rows x samples". */
  readonly title: string;
  readonly status: Status;
  /** One line with the numbers behind the status. */
  readonly summary: string;
  readonly numbers: Readonly<Record<string, unknown>>;
  /** Located examples of what is wrong (or worth a look), at most MAX_EXAMPLES and a count of the rest. */
  readonly problems: readonly string[];
}

const RANK: Record<Status, number> = { PASS: 0, WARN: 1, FAIL: 2 };

export function worst(...statuses: readonly Status[]): Status {
  return statuses.reduce<Status>((a, b) => (RANK[b] > RANK[a] ? b : a), 'PASS');
}

export const MAX_EXAMPLES = 10;

/** Problems as they are found: every one counted, the first few kept. */
export class Examples {
  private readonly kept: string[] = [];
  private total = 0;

  public constructor(private readonly limit = MAX_EXAMPLES) {}

  public add(text: string): void {
    this.total += 1;
    if (this.kept.length < this.limit) this.kept.push(text);
  }

  public get count(): number {
    return this.total;
  }

  public list(): string[] {
    const more = this.total - this.kept.length;
    return more > 0 ? [...this.kept, `... and ${more} more`] : [...this.kept];
  }
}

/** `n` of `whole` as a percentage with one decimal, for summaries. */
export function pct(n: number, whole: number): string {
  return whole === 0 ? '0%' : `${((n / whole) * 100).toFixed(1)}%`;
}

/** `3 records`, `1 record`. */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

/** A short list for a summary line: `0, 4, 17 and 3 more`. */
export function shortList(items: readonly (string | number)[], total = items.length, limit = 8): string {
  const shown = items.slice(0, limit).join(', ');
  return total > Math.min(items.length, limit) ? `${shown} and ${total - Math.min(items.length, limit)} more` : shown;
}
