// Messages on stderr, never stdout: `<cli>: error (at file:line): reason`, `<cli>: warning: ...`.
// Colour only for a terminal, and never with NO_COLOR, TERM=dumb or --no-color.
import type { Writable } from 'node:stream';
import { formatPlace, type Place } from './errors.js';
import { redact } from './secrets.js';

export interface LoggerOptions {
  readonly color: boolean;
  /** Warnings beyond this many of one kind are counted, not printed. */
  readonly maxRepeats?: number;
}

export function wantsColor(stream: Writable, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag;
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['TERM'] === 'dumb') return false;
  return (stream as Writable & { isTTY?: boolean }).isTTY === true;
}

export class Logger {
  private readonly repeats = new Map<string, number>();
  private readonly maxRepeats: number;

  public constructor(
    private readonly name: string,
    private readonly stream: Writable,
    private readonly options: LoggerOptions,
  ) {
    this.maxRepeats = options.maxRepeats ?? 20;
  }

  public error(message: string, place?: Place): void {
    this.print(this.paint('error', 31), message, place);
  }

  /** A warning; the same `kind` is printed at most maxRepeats times, then counted in suppressed(). */
  public warn(message: string, place?: Place, kind = message): void {
    const seen = (this.repeats.get(kind) ?? 0) + 1;
    this.repeats.set(kind, seen);
    if (seen <= this.maxRepeats) this.print(this.paint('warning', 33), message, place);
  }

  public info(message: string): void {
    this.stream.write(`${this.name}: ${redact(message)}\n`);
  }

  /** How many warnings were not printed, by kind. */
  public suppressed(): [string, number][] {
    return [...this.repeats.entries()].filter(([, n]) => n > this.maxRepeats).map(([k, n]) => [k, n - this.maxRepeats]);
  }

  private print(label: string, message: string, place: Place | undefined): void {
    const at = place ? ` (at ${formatPlace(place)})` : '';
    // Every message, whatever it quotes (an endpoint's error body, a tool's output), loses the run's secrets here.
    this.stream.write(redact(`${this.name}: ${label}${at}: ${message}\n`));
  }

  private paint(text: string, code: number): string {
    return this.options.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }
}
