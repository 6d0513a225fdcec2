// Runs the real hermes-generate process against a scripted endpoint, with the one fake key
// (secrets.ts) and every file it writes (output, workspaces, stats) under one scratch directory.
// Every run is checked for the key: it must appear neither in its stdout or stderr nor in any file
// under that directory, so the whole suite's generate runs are scanned, not one chosen test.
// startGenerate runs one in the background, for the tests that stop, kill or race it.
import { spawn, type ChildProcess } from 'node:child_process';
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

/** How a background hermes-generate ended, with all it wrote. */
export interface EndedGenerate {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly pid: number;
}

export interface StartedGenerate {
  readonly child: ChildProcess;
  /** What it has written so far (it grows while the process runs). */
  readonly output: { readonly stdout: string; readonly stderr: string };
  /** Once it has exited and its streams are closed. */
  readonly ended: Promise<EndedGenerate>;
}

export interface StartOptions {
  /** Added to the environment (which already holds HERMES_API_KEY). */
  readonly env?: NodeJS.ProcessEnv;
  /** `ulimit -n` of the process. */
  readonly maxOpenFiles?: number;
  /** Polled every 5 ms while the process runs: it is SIGKILLed once this returns true. */
  readonly killWhen?: (() => boolean) | undefined;
}

/** hermes-generate ...args in `dir`, in the background, stdin empty; the environment is runGenerate's. */
export function startGenerate(dir: string, args: readonly string[], options: StartOptions = {}): StartedGenerate {
  const command = [process.execPath, binPath('generate', 'hermes-generate'), ...args];
  const [file, ...argv] =
    options.maxOpenFiles === undefined ? command : ['/bin/bash', '-c', `ulimit -n ${options.maxOpenFiles} && exec "$@"`, 'bash', ...command];
  const child = spawn(file ?? process.execPath, argv, {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HERMES_API_KEY: TEST_API_KEY, SHLVL: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (c: Buffer) => (output.stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output.stderr += c.toString()));
  const { killWhen } = options;
  const poll =
    killWhen === undefined
      ? undefined
      : setInterval(() => {
          if (!killWhen()) return;
          clearInterval(poll);
          child.kill('SIGKILL');
        }, 5);
  const ended = new Promise<EndedGenerate>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal, ...output, pid: child.pid ?? 0 });
    });
  });
  return { child, output, ended };
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
