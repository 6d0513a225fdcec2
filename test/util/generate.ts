// Runs the real hermes-generate process against a scripted endpoint, with the one fake key
// (secrets.ts) and every file it writes (output, workspaces, stats) under one scratch directory.
// Every run is checked for the key: it must appear neither in its stdout or stderr nor in any file
// under that directory, so the whole suite's generate runs are scanned, not one chosen test.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Trajectory } from '@hermes-datagen/core';
import { binPath, jsonl, parseJsonl, runProcess, tempDir, type CliResult } from './cli.js';
import { TEST_API_KEY } from './secrets.js';

export const TEST_MODEL = 'test-model';

export interface GenerateRun extends CliResult {
  /** stdout parsed as trajectory records. */
  records: Trajectory[];
  /** The scratch directory: workspaces are under `workspaces/`. */
  dir: string;
}

export interface GenerateOptions {
  /** Added to the environment (which already holds HERMES_API_KEY). */
  env?: NodeJS.ProcessEnv;
  /** The scratch directory to use (default: a new one). */
  dir?: string;
  /** Only for a test that shows a leak on purpose (--sandbox none): its run is not scanned for the key. */
  skipSecretScan?: boolean;
  /** `ulimit -n` of the process. */
  maxOpenFiles?: number;
}

/** Prompts as rows (or raw JSONL text) -> hermes-generate --base-url URL --model test-model ...args. */
export async function runGenerate(
  baseUrl: string,
  prompts: readonly unknown[] | string,
  args: readonly string[] = [],
  options: GenerateOptions = {},
): Promise<GenerateRun> {
  const dir = options.dir ?? tempDir('hermes-generate-e2e-');
  const result = await runProcess(
    binPath('generate', 'hermes-generate'),
    ['--base-url', baseUrl, '--model', TEST_MODEL, '--workspace-root', join(dir, 'workspaces'), ...args],
    {
      input: typeof prompts === 'string' ? prompts : jsonl(prompts),
      // SHLVL as a login shell sets it: without it, Debian's bash reads ~/.bashrc when its stdin is a
      // socket (node's pipes are), and whatever that prints would land in the terminal tool's output.
      env: { HERMES_API_KEY: TEST_API_KEY, SHLVL: '1', ...options.env },
      cwd: dir,
      ...(options.maxOpenFiles === undefined ? {} : { maxOpenFiles: options.maxOpenFiles }),
    },
  );
  if (options.skipSecretScan !== true) expectNoSecret(dir, result);
  return { ...result, records: parseJsonl(result.stdout) as Trajectory[], dir };
}

/** Fails when the key appears in the streams or in any file under `dir` (links are not followed). */
export function expectNoSecret(dir: string, streams: Pick<CliResult, 'stdout' | 'stderr'>, secret: string = TEST_API_KEY): void {
  expect(streams.stdout.includes(secret), 'the API key appears on stdout').toBe(false);
  expect(streams.stderr.includes(secret), 'the API key appears on stderr').toBe(false);
  const leaking = filesUnder(dir).filter((file) => readFileSync(file).includes(secret));
  expect(leaking, 'files that hold the API key').toEqual([]);
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}
