// Progress on stderr: only for a terminal or with --progress, at most once a second.
// On a terminal the line is redrawn in place; otherwise each report is its own line (for logs).
import type { Writable } from 'node:stream';

/**
 * ansi: redrawn in place, the rest of the line cleared with ESC[K. plain: redrawn in place with
 * spaces instead (TERM=dumb promises no escape sequences). lines: one line per report.
 */
export type ProgressStyle = 'ansi' | 'plain' | 'lines';

export function progressStyle(stream: Writable, env: NodeJS.ProcessEnv): ProgressStyle {
  if ((stream as Writable & { isTTY?: boolean }).isTTY !== true) return 'lines';
  return env['TERM'] === 'dumb' ? 'plain' : 'ansi';
}

export class Progress {
  private records = 0;
  private readonly started = Date.now();
  private lastReport = Date.now();
  /** The length of the line last drawn; 0 before the first. */
  private drawn = 0;
  /** More for the line, from the command (e.g. hermes-generate's prompts done, running, ETA). */
  private detail: (() => string) | undefined;

  public constructor(
    private readonly name: string,
    private readonly stream: Writable,
    private readonly enabled: boolean,
    private readonly style: ProgressStyle,
  ) {}

  public tick(n = 1): void {
    this.records += n;
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastReport < 1000) return;
    this.lastReport = now;
    this.draw(now);
  }

  public setDetail(detail: () => string): void {
    this.detail = detail;
  }

  public done(): void {
    if (!this.enabled) return;
    this.draw(Date.now());
    if (this.style !== 'lines' && this.drawn > 0) this.stream.write('\n');
  }

  private draw(now: number): void {
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = Math.round(this.records / seconds);
    const text = `${this.name}: ${this.records.toLocaleString('en-US')} records, ${rate.toLocaleString('en-US')}/s${this.detail ? `; ${this.detail()}` : ''}`;
    if (this.style === 'lines') this.stream.write(`${text}\n`);
    else this.stream.write(`\r${text}${this.style === 'ansi' ? '\u001b[K' : ' '.repeat(Math.max(0, this.drawn - text.length))}`);
    this.drawn = text.length;
  }
}
