// The error classes every CLI throws, and the one table that maps them to exit codes.
// Commands never print errors or exit: they throw, and the runner (cli.ts) is the single funnel.

/** Exit codes of every hermes-* CLI (also printed in each --help and the README). */
export const ExitCode = {
  ok: 0,
  /** Checks failed, or records were rejected under a strict flag. */
  checksFailed: 1,
  /** Usage or configuration error. */
  usage: 2,
  /** Input data error (bad line under --on-error fail, unreadable input). */
  inputData: 3,
  /** Retryable failure: endpoint unreachable, rate-limit budget exhausted. Run again (or --resume). */
  retryable: 4,
  /** hermes-generate's --max-cost or --max-tokens was reached: --resume with a higher budget continues. */
  budgetReached: 5,
  interrupted: 130,
  terminated: 143,
  /** An unexpected exception: a bug, distinct from every documented outcome. */
  internal: 70,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

const EXIT_CODE_LINES: readonly (readonly [ExitCodeValue, string])[] = [
  [0, '  0    ok'],
  [1, '  1    checks failed, or records rejected under a strict flag'],
  [2, '  2    usage or configuration error'],
  [3, '  3    input data error (bad line under --on-error fail, unreadable input)'],
  [4, '  4    retryable failure (endpoint unreachable, rate-limit budget exhausted)'],
  [5, '  5    budget reached (hermes-generate --max-cost / --max-tokens; --resume with a higher one continues)'],
  [70, '  70   internal error (a bug: please report it)'],
  [130, '  130  interrupted (SIGINT), 143 terminated (SIGTERM), after flushing what is done'],
];

/** The codes every CLI can give; a CLI with others (generate's 5) or fewer names its own. */
const SHARED_EXIT_CODES: readonly ExitCodeValue[] = [0, 1, 2, 3, 4, 70, 130];

/** The Exit codes section of --help: the shared codes, or only those a CLI can give. */
export function exitCodesHelp(codes: readonly ExitCodeValue[] = SHARED_EXIT_CODES): string {
  return ['Exit codes:', ...EXIT_CODE_LINES.filter(([code]) => codes.includes(code)).map(([, line]) => line)].join('\n');
}

/** Where an input line came from: file name (or `<stdin>`) and 1-based line number. */
export interface Place {
  readonly source: string;
  readonly line: number;
}

export function formatPlace(place: Place): string {
  return `${place.source}:${place.line}`;
}

/** A user-facing failure: printed as `<cli>: error[ (at file:line)]: <message>`, never with a stack. */
export class HermesError extends Error {
  public readonly exitCode: ExitCodeValue;
  public readonly place: Place | undefined;

  public constructor(message: string, exitCode: ExitCodeValue, place?: Place) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.place = place;
  }
}

export class UsageError extends HermesError {
  public constructor(message: string) {
    super(message, ExitCode.usage);
  }
}

export class InputError extends HermesError {
  public constructor(message: string, place?: Place) {
    super(message, ExitCode.inputData, place);
  }
}

export class RetryableError extends HermesError {
  public constructor(message: string) {
    super(message, ExitCode.retryable);
  }
}

export class ChecksFailedError extends HermesError {
  public constructor(message: string) {
    super(message, ExitCode.checksFailed);
  }
}

/** Thrown when stdout's reader has gone away (`| head`): the runner exits 0 quietly. */
export class BrokenPipe extends Error {
  public constructor() {
    super('broken pipe');
    this.name = 'BrokenPipe';
  }
}
