// --env-file: a .env file read on request, never implicitly. Its variables sit under the environment
// (a variable already set wins, as with `node --env-file`), so the file fills gaps and never silently
// replaces what the shell exported; the endpoint warns when the two disagree.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { UsageError } from './errors.js';

export interface EnvFile {
  /** The path as given on the command line, for messages. */
  readonly path: string;
  readonly values: Readonly<Record<string, string>>;
}

export async function loadEnvFile(path: string, cwd: string): Promise<EnvFile> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`cannot read --env-file ${path} (${code}): check the path; the file is read only when named`);
  }
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) values[name] = value;
  return { path, values };
}
