// The one runner behind every hermes-* bin: parses argv (yargs), gives the command a context with the
// shared stream conventions, and is the single funnel from errors to messages and exit codes.
// runCli never exits the process, so tests drive CLIs in-process; main() is the bins' thin wrapper.
import { accessSync, constants, readFileSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import yargs, { type ArgumentsCamelCase, type Argv } from 'yargs';
import { writeJsonAtomic, writeJsonAtomicSync } from './atomicFile.js';
import { Counters } from './counters.js';
import { BrokenPipe, ExitCode, type ExitCodeValue, exitCodesHelp, HermesError, InputError, UsageError } from './errors.js';
import { checkOperands, DEFAULT_MAX_LINE_BYTES } from './lineReader.js';
import { onForcedExit, runForcedExitHooks } from './forcedExit.js';
import { Logger, wantsColor } from './logger.js';
import type { Reject } from './model.js';
import { peakRssMb } from './peakRss.js';
import { Progress, progressStyle } from './progress.js';
import {
  readRecords,
  type DataRecord,
  type InputRecord,
  type OnError,
  type ReadOptions,
  type RecordReader,
  type RecordSchema,
  type TombstoneRecord,
} from './records.js';
import type { JsonObject, SchemaTypes } from './schemas.js';
import { notANumberMessage, unknownArgumentsMessage } from './usageMessages.js';
import { JsonlWriter } from './writer.js';

/** yargs' builder type, for option helpers: commands reach yargs only through core, which declares it. */
export type { Argv };

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface CliIo {
  /** Absent: the process's own stdin, read straight from fd 0 (faster than the stream). */
  readonly stdin?: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Aborted with 'SIGINT' or 'SIGTERM' as its reason when the process is asked to stop. */
  readonly signal?: AbortSignal;
}

/** Options every command has. */
export interface GlobalArgs {
  color: boolean | undefined;
}

/** The shared stream options, added to commands that read and write JSONL. */
export interface StreamArgs extends GlobalArgs {
  files: string[];
  output?: string;
  onError: OnError;
  rejects?: string;
  statsOut?: string;
  progress?: boolean;
  maxLineBytes: number;
}

export interface RunContext {
  readonly name: string;
  readonly io: CliIo;
  readonly log: Logger;
  /** The command's counters; written to --stats-out and summarised on stderr. */
  readonly stats: Counters;
  readonly progress: Progress;
  readonly signal: AbortSignal;
  /**
   * Records of the command's input operands (stdin when none), under --on-error / --rejects; each
   * validated against the schema named, which types its value.
   */
  readonly readRecords: RecordReader;
  /**
   * A JSONL output (default: -o / stdout), committed when the run ends, dropped on an error; with
   * `keepOnError`, committed whatever the exit code (records that each stand alone, like finished
   * trajectories that were paid for, are never thrown away).
   */
  openOutput(target?: string, options?: OutputOptions): Promise<JsonlWriter>;
  /** The --rejects file, opened on first use; undefined when the flag was not given. */
  rejects(): Promise<JsonlWriter | undefined>;
  /**
   * A record the stage cannot use (a check beyond the schema failed): the same --on-error policy
   * as a bad line. Throws an InputError under fail; under skip counts, warns and writes the reject.
   */
  rejectRecord(record: InputRecord<unknown>, reason: string): Promise<void>;
}

export interface OutputOptions {
  readonly keepOnError?: boolean;
}

/** A command's exit code; none is 0 (or the signal's code when the run was stopped). */
// biome-ignore lint/suspicious/noConfusingVoidType: an async run without a return statement is a Promise<void>, which Promise<number | undefined> does not accept
type RunResult = Promise<number | void>;

interface CommandText {
  /**
   * yargs command syntax: '$0 [files..]' for the default command, 'merge <summaries..>' for a subcommand,
   * ['serve', '$0'] for a subcommand that is also the default (its options then show in the main --help).
   */
  readonly command: string | readonly string[];
  readonly describe: string;
  readonly examples?: readonly (readonly [string, string])[];
}

/**
 * A command that reads and writes JSONL: its options start from the shared stream options (-o,
 * --on-error, --rejects, --stats-out, --progress, --max-line-bytes). yargs types each option under its
 * declared kebab-case name and sets it under the camelCase name too, so run reads both, typed.
 */
export interface StreamCommand<B> extends CommandText {
  readonly stream: true;
  readonly options?: (y: StreamArgv) => Argv<B>;
  run(args: ArgumentsCamelCase<B>, ctx: RunContext): RunResult;
}

/** A command without the stream options (doctor, merge, serve). */
export interface PlainCommand<B> extends CommandText {
  readonly stream?: false;
  readonly options?: (y: Argv<GlobalArgs>) => Argv<B>;
  run(args: ArgumentsCamelCase<B>, ctx: RunContext): RunResult;
}

export type CliCommand<B> = StreamCommand<B> | PlainCommand<B>;

/** A command that registers itself with the parser; its argument types stay inside, so commands of different shapes share one list. */
export interface AnyCliCommand {
  register(parser: Argv<GlobalArgs>, select: (selected: Selected) => void): Argv<GlobalArgs>;
}

/** The options addStreamOptions declares, as yargs types them. */
type StreamOptionTypes = StreamArgv extends Argv<infer T> ? T : never;
type StreamArgv = ReturnType<typeof addStreamOptions<GlobalArgs>>;

export function defineCommand<B extends StreamOptionTypes = StreamOptionTypes>(command: StreamCommand<B>): AnyCliCommand;
export function defineCommand<B extends GlobalArgs = GlobalArgs>(command: PlainCommand<B>): AnyCliCommand;
export function defineCommand(command: StreamCommand<StreamOptionTypes> | PlainCommand<GlobalArgs>): AnyCliCommand {
  const withExamples = <T>(built: Argv<T>): Argv<T> => {
    for (const [example, what] of command.examples ?? []) built.example(example, what);
    return built;
  };
  if (command.stream) {
    return {
      register: (parser, select) =>
        parser.command(
          command.command,
          command.describe,
          (y) => withExamples(command.options ? command.options(addStreamOptions(y)) : addStreamOptions(y)),
          (args) => {
            restoreDashes(args);
            select({ args, streamArgs: args, run: (ctx) => command.run(args, ctx) });
          },
        ),
    };
  }
  return {
    register: (parser, select) =>
      parser.command(
        command.command,
        command.describe,
        (y) => withExamples(command.options ? command.options(y) : y),
        (args) => {
          restoreDashes(args);
          select({ args, streamArgs: undefined, run: (ctx) => command.run(args, ctx) });
        },
      ),
  };
}

export interface CliSpec {
  /** The bin name, e.g. hermes-filter. */
  readonly name: string;
  /** One sentence: what the CLI does. */
  readonly summary: string;
  readonly commands: readonly AnyCliCommand[];
  /** Environment variables the CLI reads, for --help. */
  readonly env?: readonly (readonly [string, string])[];
  /** More help text after the options (before exit codes). */
  readonly epilog?: string;
  /** The exit codes this CLI can give, for --help (default: all of them). */
  readonly exitCodes?: readonly ExitCodeValue[];
}

function addStreamOptions<T>(y: Argv<T>) {
  return y
    .positional('files', { describe: 'JSONL inputs (gzip detected); - or none reads stdin', type: 'string', array: true, default: [] })
    .option('output', {
      alias: 'o',
      type: 'string',
      describe: 'write here instead of stdout (temp file, renamed when done; .gz compresses)',
      group: 'Stream options:',
    })
    .option('on-error', {
      choices: ['fail', 'skip'] as const,
      default: 'fail' as OnError,
      describe: 'a bad input line stops the run (exit 3) or is skipped',
      group: 'Stream options:',
    })
    .option('rejects', { type: 'string', describe: 'write skipped lines here as {line, source, reason, raw}', group: 'Stream options:' })
    .option('stats-out', { type: 'string', describe: "write this command's counters here (JSON)", group: 'Stream options:' })
    .option('progress', { type: 'boolean', describe: 'progress on stderr (default: only when stderr is a terminal)', group: 'Stream options:' })
    .option('max-line-bytes', {
      type: 'number',
      default: DEFAULT_MAX_LINE_BYTES,
      describe: 'longer lines are rejected without being read whole',
      group: 'Stream options:',
    });
}

/**
 * Everything the stream options name is checked before the command does any work (reads input,
 * calls a model): a mistake found after an hour's run, or after every model call was paid for,
 * costs that hour. Throws a UsageError naming the option.
 */
function checkStreamArgs(args: StreamArgs, cwd: string): void {
  const max = args.maxLineBytes;
  if (!Number.isSafeInteger(max) || max <= 0)
    throw new UsageError(`--max-line-bytes must be a whole number of bytes above 0 (got ${Number.isNaN(max) ? 'a value that is not a number' : String(max)})`);
  checkOperands(args.files ?? []);
  if (args.output !== undefined && args.output !== '-') checkWritableTarget('--output', args.output, cwd);
  if (args.rejects !== undefined) checkWritableTarget('--rejects', args.rejects, cwd);
  if (args.statsOut !== undefined) checkWritableTarget('--stats-out', args.statsOut, cwd);
}

/**
 * A file an option names, to be written when the run ends: its directory must exist and be
 * writable, and the path must not be a directory. Commands check their own output options with it.
 */
export function checkWritableTarget(option: string, path: string, cwd: string): void {
  const target = resolve(cwd, path);
  const dir = dirname(target);
  let dirStat: Stats;
  try {
    dirStat = statSync(dir);
  } catch {
    throw new UsageError(`${option} ${path}: no such directory ${dir}`);
  }
  if (!dirStat.isDirectory()) throw new UsageError(`${option} ${path}: ${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`${option} ${path}: cannot write in ${dir} (permission denied)`);
  }
  if (statSync(target, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${option} ${path}: is a directory`);
}

function helpEpilog(spec: CliSpec): string {
  const parts: string[] = [];
  if (spec.epilog) parts.push(spec.epilog.trim());
  if (spec.env && spec.env.length > 0) {
    parts.push(['Environment:', ...spec.env.map(([k, v]) => `  ${k.padEnd(18)} ${v}`), `  ${'NO_COLOR'.padEnd(18)} no colour on stderr`].join('\n'));
  }
  parts.push(exitCodesHelp(spec.exitCodes));
  return parts.join('\n\n');
}

// yargs drops a bare `-` operand, which by convention names stdin (stdout for `-o -`): it is carried
// through parsing as this token and restored afterwards.
const DASH_TOKEN = '\u0000-';

function restoreDashes(args: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(args)) {
    if (value === DASH_TOKEN) args[key] = '-';
    else if (Array.isArray(value)) args[key] = value.map((v: unknown) => (v === DASH_TOKEN ? '-' : v));
  }
}

/** The options yargs knows at the point parsing stopped (the chosen command's included); yargs' types omit getOptions. */
function knownOptions(parser: object): string[] {
  const getOptions: unknown = Reflect.get(parser, 'getOptions');
  if (typeof getOptions !== 'function') return [];
  const options: unknown = getOptions.call(parser);
  const key: unknown = typeof options === 'object' && options !== null ? Reflect.get(options, 'key') : undefined;
  return typeof key === 'object' && key !== null ? Object.keys(key) : [];
}

interface Selected {
  /** The shared options; a command without the stream options has only --color of them. */
  readonly args: GlobalArgs & Partial<StreamArgs>;
  /** The same arguments, when the command has the stream options. */
  readonly streamArgs: StreamArgs | undefined;
  run(ctx: RunContext): RunResult;
}

/** Runs one CLI invocation and returns its exit code; never calls process.exit. */
export async function runCli(spec: CliSpec, argv: readonly string[], partialIo: Partial<CliIo> = {}): Promise<number> {
  const io: CliIo = {
    ...(partialIo.stdin ? { stdin: partialIo.stdin } : {}),
    stdout: partialIo.stdout ?? process.stdout,
    stderr: partialIo.stderr ?? process.stderr,
    env: partialIo.env ?? process.env,
    cwd: partialIo.cwd ?? process.cwd(),
    ...(partialIo.signal ? { signal: partialIo.signal } : {}),
  };
  let selected: Selected | undefined;
  const tokens = argv.map((a) => (a === '-' ? DASH_TOKEN : a));
  let parser = yargs(tokens)
    .scriptName(spec.name)
    .usage(`${spec.name}: ${spec.summary}`)
    .option('color', { type: 'boolean', describe: 'colour on stderr (default: only on a terminal, never with NO_COLOR)', global: true })
    .strict()
    .help()
    .alias('h', 'help')
    .version(VERSION)
    .wrap(null)
    .epilog(helpEpilog(spec))
    .exitProcess(false)
    .fail((message, err) => {
      throw err ?? new UsageError(message);
    });
  for (const command of spec.commands) {
    parser = command.register(parser, (chosen) => {
      selected = chosen;
    });
  }
  if (spec.commands.length > 1) parser = parser.demandCommand(1, `${spec.name}: name a command (see --help)`);

  let helpText = '';
  try {
    await parser.parseAsync(tokens, {}, (_err: Error | undefined, _args: unknown, output: string) => {
      helpText = output;
    });
  } catch (err) {
    const message = unknownArgumentsMessage(err instanceof Error ? err.message : String(err), knownOptions(parser), argv);
    io.stderr.write(`${spec.name}: error: ${message}\n${spec.name}: try '${spec.name} --help'\n`);
    return ExitCode.usage;
  }
  const notANumber = selected === undefined ? undefined : notANumberMessage(selected.args, argv);
  if (notANumber !== undefined) {
    io.stderr.write(`${spec.name}: error: ${notANumber}\n${spec.name}: try '${spec.name} --help'\n`);
    return ExitCode.usage;
  }
  if (!selected) {
    if (helpText) io.stdout.write(helpText.endsWith('\n') ? helpText : `${helpText}\n`);
    return ExitCode.ok;
  }
  return execute(spec, selected, io);
}

async function execute(spec: CliSpec, { args, streamArgs, run }: Selected, io: CliIo): Promise<number> {
  const started = Date.now();
  const log = new Logger(spec.name, io.stderr, { color: wantsColor(io.stderr, io.env, args.color) });
  const stats = new Counters();
  const stderrIsTty = (io.stderr as Writable & { isTTY?: boolean }).isTTY === true;
  const progress = new Progress(spec.name, io.stderr, args.progress ?? stderrIsTty, progressStyle(io.stderr, io.env));
  const controller = new AbortController();
  io.signal?.addEventListener('abort', () => controller.abort(io.signal?.reason), { once: true });
  if (io.signal?.aborted) controller.abort(io.signal.reason);

  function readInput<S extends RecordSchema>(options: {
    readonly schema: S;
    readonly tombstones: true;
  }): AsyncGenerator<(DataRecord<SchemaTypes[S] & JsonObject> | TombstoneRecord)[]>;
  function readInput<S extends RecordSchema>(options: {
    readonly schema: S;
    readonly tombstones?: false;
  }): AsyncGenerator<DataRecord<SchemaTypes[S] & JsonObject>[]>;
  function readInput(options?: ReadOptions): AsyncGenerator<InputRecord[]>;
  function readInput(options: ReadOptions = {}): AsyncGenerator<InputRecord[]> {
    return countedRecords(ctx, args, options);
  }
  const outputs: { writer: JsonlWriter; keepOnError: boolean }[] = [];
  let rejectsWriter: Promise<JsonlWriter | undefined> | undefined;
  const ctx: RunContext = {
    name: spec.name,
    io,
    log,
    stats,
    progress,
    signal: controller.signal,
    rejects: () => {
      rejectsWriter ??= args.rejects === undefined ? Promise.resolve(undefined) : JsonlWriter.open(args.rejects, io.stdout, io.cwd);
      return rejectsWriter;
    },
    openOutput: async (target = args.output, options = {}) => {
      const writer = await JsonlWriter.open(target, io.stdout, io.cwd);
      outputs.push({ writer, keepOnError: options.keepOnError === true });
      return writer;
    },
    readRecords: readInput,
    rejectRecord: async (record, reason) => {
      if ((args.onError ?? 'fail') === 'fail') throw new InputError(reason, record.place);
      await skipBadInput(ctx, { line: record.place.line, source: record.place.source, reason, raw: record.raw });
    },
  };

  const statsReport = (exitCode: number): Record<string, unknown> => ({
    command: spec.name,
    version: VERSION,
    exit_code: exitCode,
    duration_s: Math.round((Date.now() - started) / 10) / 100,
    // This process's peak: meaningful for a real run, not for one inside a test process.
    peak_rss_mb: peakRssMb(),
    counters: stats.toJSON(),
  });
  // A forced exit (a second Ctrl-C) still leaves --stats-out, with what was counted until then.
  const statsTarget = args.statsOut === undefined ? undefined : resolve(io.cwd, args.statsOut);
  const forgetForcedExit = statsTarget === undefined ? undefined : onForcedExit((exitCode) => writeJsonAtomicSync(statsTarget, statsReport(exitCode)));
  let code: number;
  // False when the options were refused: nothing ran, so no --rejects or --stats-out is written.
  let ran = false;
  try {
    if (streamArgs) checkStreamArgs(streamArgs, io.cwd);
    ran = true;
    code = (await run(ctx)) ?? ExitCode.ok;
  } catch (err) {
    code = exitCodeFor(err, log, spec.name);
  }
  forgetForcedExit?.();
  if (controller.signal.aborted && code === ExitCode.ok) {
    code = controller.signal.reason === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
  }
  // Outputs are kept when the run ended or was stopped (what is done is valid); dropped on an
  // error that makes them wrong (usage, bad input, a bug).
  const keep = code !== ExitCode.usage && code !== ExitCode.inputData && code !== ExitCode.internal;
  for (const { writer, keepOnError } of outputs) {
    try {
      if (keep || keepOnError) await writer.close();
      else await writer.discard();
    } catch (err) {
      if (!(err instanceof BrokenPipe)) code = exitCodeFor(err, log, spec.name);
    }
  }
  // Every stage leaves a --rejects file, empty when nothing was rejected, so a pipeline's next step
  // (and `wc -l`) finds one whatever happened.
  if (ran) void ctx.rejects();
  const rejects = await rejectsWriter?.catch(() => undefined);
  await rejects?.close().catch(() => undefined);
  progress.done();
  summarise(ctx, args);
  if (args.statsOut !== undefined && ran) {
    await writeJsonAtomic(resolve(io.cwd, args.statsOut), statsReport(code)).catch((err: Error) => {
      log.error(`cannot write --stats-out ${args.statsOut}: ${err.message}`);
      code = code === ExitCode.ok ? ExitCode.usage : code;
    });
  }
  return code;
}

async function* countedRecords(ctx: RunContext, args: Partial<StreamArgs>, options: ReadOptions): AsyncGenerator<InputRecord[]> {
  // Present even when 0, so every --stats-out file of a command has the same keys.
  for (const counter of ['records_in', 'rejected_lines', 'blank_lines']) ctx.stats.add(counter, 0);
  const batches = readRecords(args.files ?? [], ctx.io.stdin, ctx.io.cwd, {
    ...options,
    onError: args.onError ?? 'fail',
    maxLineBytes: args.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    signal: ctx.signal,
    onNotice: (message, place) => ctx.log.warn(message, place, 'notice'),
    onBlank: () => ctx.stats.add('blank_lines'),
    onReject: (reject) => skipBadInput(ctx, reject),
  });
  for await (const batch of batches) {
    ctx.stats.add('records_in', batch.length);
    ctx.progress.tick(batch.length);
    yield batch;
  }
}

/** --on-error skip: counted, warned about with its place, and kept in --rejects when given. */
async function skipBadInput(ctx: RunContext, reject: Reject): Promise<void> {
  ctx.stats.add('rejected_lines');
  ctx.log.warn(reject.reason, { source: reject.source, line: reject.line }, 'bad-line');
  await (await ctx.rejects())?.write(reject);
}

function summarise(ctx: RunContext, args: Partial<StreamArgs>): void {
  const rejected = ctx.stats.get('rejected_lines');
  if (rejected > 0) {
    const where = args.rejects ? ` (written to ${args.rejects})` : ' (use --rejects FILE to keep them)';
    ctx.log.warn(`skipped ${rejected} bad input line${rejected === 1 ? '' : 's'}${where}`, undefined, 'summary');
  }
  for (const [kind, n] of ctx.log.suppressed()) {
    if (kind !== 'summary') ctx.log.info(`${n} more warnings like the above were not printed`);
  }
}

function exitCodeFor(err: unknown, log: Logger, name: string): number {
  if (err instanceof BrokenPipe) return ExitCode.ok;
  if (err instanceof HermesError) {
    log.error(err.message, err.place);
    return err.exitCode;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  if ((e as NodeJS.ErrnoException).code === 'EPIPE') return ExitCode.ok;
  log.error(`internal error, a bug in ${name} ${VERSION}; please report it with the command that caused it:\n${e.stack ?? e.message}`);
  return ExitCode.internal;
}

/** The bins' entry: real process streams, SIGINT/SIGTERM stop the run (a second one exits at once, forcedExit.ts). */
export function main(spec: CliSpec): void {
  const controller = new AbortController();
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (controller.signal.aborted) {
      const code = signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
      runForcedExitHooks(code);
      process.exit(code);
    }
    controller.abort(signal);
    // Unblocks a read waiting on a quiet pipe; what was read is still processed and flushed.
    process.stdin.destroy();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  // EPIPE surfaces through the writer; this keeps an unhandled 'error' event from crashing first.
  process.stdout.on('error', () => undefined);
  let settled = false;
  // Nothing left to wait for while the run has not finished: a promise that will never settle (a
  // bug) would otherwise end the process with exit 0 and the input not fully read.
  process.on('beforeExit', () => {
    if (settled) return;
    process.stderr.write(
      `${spec.name}: error: internal error, a bug in ${spec.name} ${VERSION}: the run stopped waiting for something that never happened; please report it with the command that caused it\n`,
    );
    process.exit(ExitCode.internal);
  });
  void runCli(spec, process.argv.slice(2), { signal: controller.signal }).then((code) => {
    settled = true;
    // Exit explicitly: an unread stdin (e.g. after `| head`) would otherwise keep the process alive.
    process.stdout.write('', () => process.exit(code));
  });
}
