// Reading a file named by a command-line option: a failure is a usage error that names the option,
// the path and what to check.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from './errors.js';

export async function readOptionFile(option: string, path: string, cwd: string, advice = 'check the path'): Promise<string> {
  try {
    return await readFile(resolve(cwd, path), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`cannot read ${option} ${path} (${code}): ${advice}`);
  }
}
