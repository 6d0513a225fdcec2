// --env-file: a .env file read on request, never implicitly. Its variables sit under the environment
// (a variable already set wins, as with `node --env-file`), so the file fills gaps and never silently
// replaces what the shell exported; the endpoint warns when the two disagree.
import { parseEnv } from 'node:util';
import { loadOptionFile } from './optionFile.js';

export interface EnvFile {
  /** The path as given on the command line, for messages. */
  readonly path: string;
  readonly values: Readonly<Record<string, string>>;
}

export function loadEnvFile(path: string, cwd: string): EnvFile {
  const text = loadOptionFile({ option: '--env-file', path, cwd, advice: 'the file is read only when named' }, 'text');
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) values[name] = value;
  return { path, values };
}
