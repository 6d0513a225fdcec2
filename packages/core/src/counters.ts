// A CLI's own counters: printed as a summary on stderr and written by --stats-out.

export class Counters {
  private readonly values = new Map<string, number>();

  public add(name: string, n = 1): void {
    this.values.set(name, (this.values.get(name) ?? 0) + n);
  }

  public get(name: string): number {
    return this.values.get(name) ?? 0;
  }

  /** Counter names sorted, so files written from it are stable. */
  public toJSON(): Record<string, number> {
    return Object.fromEntries([...this.values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
