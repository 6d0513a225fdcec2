// Progress on stderr: only for a terminal or with --progress, at most once a second.
// On a terminal the line is redrawn in place; otherwise each report is its own line (for logs).
import type { Writable } from 'node:stream';

export class Progress {
  private records = 0;
  private readonly started = Date.now();
  private lastReport = Date.now();
  private drawn = false;

  public constructor(
    private readonly name: string,
    private readonly stream: Writable,
    private readonly enabled: boolean,
    private readonly inPlace: boolean,
  ) {}

  public tick(n = 1): void {
    this.records += n;
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastReport < 1000) return;
    this.lastReport = now;
    this.draw(now);
  }

  public done(): void {
    if (!this.enabled) return;
    this.draw(Date.now());
    if (this.inPlace && this.drawn) this.stream.write('\n');
  }

  private draw(now: number): void {
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = Math.round(this.records / seconds);
    const text = `${this.name}: ${this.records.toLocaleString('en-US')} records, ${rate.toLocaleString('en-US')}/s`;
    this.stream.write(this.inPlace ? `\r${text}\u001b[K` : `${text}\n`);
    this.drawn = true;
  }
}
