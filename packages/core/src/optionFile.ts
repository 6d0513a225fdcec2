// The one reader of files a command is pointed at besides its JSONL stream: option files (--config,
// --env-file, --tools-registry, --script, ...) and operand files that are not JSONL (hermes-stats
// merge summaries, a run directory's run.json). It reads, parses as asked, and fails with a message
// that names the option and the file.
//
// The exit code depends on how the file was named, never on the caller (docs/exit-codes.md):
//   named by an option (role 'option', the default): every fault is a usage error, exit 2; the
//     command has read nothing yet, and the command line or the file must be fixed before a rerun;
//   named by an operand, or found in an operand's directory (role 'input'): every fault is an input
//     error, exit 3, as for an unreadable JSONL input.
// A missing or unreadable file, a parse error and a wrong shape (optionFileError) follow the same rule.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, resolve } from 'node:path';
import { InputError, UsageError, type HermesError } from './errors.js';

export interface OptionFile {
  /** How the file was named, for messages: '--config', '--tools-registry', 'summary', 'run file'. */
  readonly option: string;
  /** The path as given (relative to cwd), shown in messages. */
  readonly path: string;
  readonly cwd: string;
  /** 'option' (default): faults exit 2. 'input': the file is data named by an operand; faults exit 3. */
  readonly role?: 'option' | 'input';
  /** What else to do about any fault in the file, appended to every message (e.g. how to do without it). */
  readonly advice?: string;
}

/**
 * text: as is. json: one JSON value. jsonl: one JSON value per non-blank line. yaml: YAML 1.2 (which
 * also reads JSON). json-or-yaml: JSON for a .json file (so its errors are JSON's), YAML otherwise.
 * A byte order mark at the start of the file is dropped for every format but text.
 */
export type OptionFileFormat = 'text' | 'json' | 'jsonl' | 'yaml' | 'json-or-yaml';

type Parsed<F extends OptionFileFormat> = F extends 'text' ? string : F extends 'jsonl' ? unknown[] : unknown;

/** Reads and parses the file; throws a usage (2) or input (3) error naming the option and the file. */
export function loadOptionFile<F extends OptionFileFormat>(file: OptionFile, format: F): Parsed<F> {
  return parseOptionFile(file, readText(file, false) as string, format);
}

/** As loadOptionFile, but a file that does not exist gives undefined (an optional file of a run directory). */
export function loadOptionFileIfPresent<F extends OptionFileFormat>(file: OptionFile, format: F): Parsed<F> | undefined {
  const text = readText(file, true);
  return text === undefined ? undefined : parseOptionFile(file, text, format);
}

/** Parses text already read (or given by a test) as loadOptionFile would. */
export function parseOptionFile<F extends OptionFileFormat>(file: OptionFile, text: string, format: F): Parsed<F> {
  if (format === 'text') return text as Parsed<F>;
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (format === 'jsonl') return parseJsonLines(file, body) as Parsed<F>;
  const json = format === 'json' || (format === 'json-or-yaml' && extname(file.path).toLowerCase() === '.json');
  try {
    return (json ? JSON.parse(body) : yaml().parse(body)) as Parsed<F>;
  } catch (err) {
    throw optionFileError(file, `not valid ${json ? 'JSON' : 'YAML'}: ${firstLine(err)}`);
  }
}

/**
 * The error for a file whose content is wrong (read and parsed, but not what the command expects):
 * `<option> <path>[:<line>][ at <where>]: <problem>`, with the exit code of the file's role.
 */
export function optionFileError(file: OptionFile, problem: string, where?: { line?: number; at?: string }): HermesError {
  const line = where?.line === undefined ? '' : `:${where.line}`;
  const at = where?.at ? ` at ${where.at}` : '';
  return fault(file, `${file.option} ${file.path}${line}${at}: ${problem}${suffix(file)}`);
}

function readText(file: OptionFile, optional: boolean): string | undefined {
  try {
    return readFileSync(resolve(file.cwd, file.path), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (optional && code === 'ENOENT') return undefined;
    throw fault(file, `cannot read ${file.option} ${file.path} (${code ?? (err as Error).message}): check the path${suffix(file)}`);
  }
}

function parseJsonLines(file: OptionFile, text: string): unknown[] {
  const values: unknown[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch (err) {
      throw optionFileError(file, `not valid JSON: ${firstLine(err)}`, { line: index + 1 });
    }
  }
  return values;
}

function suffix(file: OptionFile): string {
  return file.advice === undefined ? '' : `; ${file.advice}`;
}

function fault(file: OptionFile, message: string): HermesError {
  return file.role === 'input' ? new InputError(message) : new UsageError(message);
}

function firstLine(err: unknown): string {
  return (err as Error).message.split('\n')[0] ?? '';
}

// yaml loads on the first YAML file only: CLIs that never read one start without it (pipelines start
// several processes, so start-up time counts).
let yamlModule: typeof import('yaml') | undefined;
function yaml(): typeof import('yaml') {
  yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yamlModule;
}
