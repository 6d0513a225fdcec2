// --env-file: a .env file read on request, never implicitly. Its variables sit under the environment
// (a variable already set wins, as with `node --env-file`), so the file fills gaps and never silently
// replaces what the shell exported; the endpoint warns when the two disagree.
import { parseEnv } from 'node:util';
import { loadOptionFile, optionFileError, type OptionFile } from './optionFile.js';

export interface EnvFile {
  /** The path as given on the command line, for messages. */
  readonly path: string;
  readonly values: Readonly<Record<string, string>>;
}

export function loadEnvFile(path: string, cwd: string): EnvFile {
  const file: OptionFile = { option: '--env-file', path, cwd, advice: 'the file is read only when named' };
  const text = loadOptionFile(file, 'text');
  checkEnvLines(file, text);
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) values[name] = value;
  return { path, values };
}

const ASSIGNMENT = /^\s*(?:export\s+)?[\w.-]+\s*=\s*(.*)$/;
const QUOTES = ['"', "'", '`'];

/**
 * Node's parseEnv reads a malformed line silently into its neighbours (a line without `=` becomes
 * part of the next name; an unclosed quote swallows every line after it), so the key could come from
 * the wrong line. Each line must be blank, a comment, or NAME=value; a quoted value may span lines
 * up to its closing quote.
 */
function checkEnvLines(file: OptionFile, text: string): void {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*(?:#.*)?$/.test(line)) continue;
    const value = ASSIGNMENT.exec(line)?.[1];
    if (value === undefined) {
      throw optionFileError(file, 'not a NAME=value line (a comment starts with #); the key and other variables cannot be read reliably', { line: i + 1 });
    }
    const quote = QUOTES.find((q) => value.startsWith(q));
    if (quote === undefined || value.indexOf(quote, 1) !== -1) continue;
    const close = lines.findIndex((later, j) => j > i && later.includes(quote));
    if (close === -1) throw optionFileError(file, `the value opened with ${quote} is never closed`, { line: i + 1 });
    i = close;
  }
}
