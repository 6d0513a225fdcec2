// Shared test helpers: run a CLI in-process (runCli with captured streams) or as a real process
// (the built bin under node), and make scratch directories. Every test file uses these.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { CliSpec } from '@hermes-datagen/core';
import { runCli } from '@hermes-datagen/core/internal/cli.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Bytes or text for stdin (default: empty). */
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Started under this limit of open files (`ulimit -n`, through bash), as on a machine whose default is low. */
  maxOpenFiles?: number;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer | string) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c)));
  return () => Buffer.concat(chunks).toString('utf8');
}

/** Runs a CLI spec in this process, as its bin would, and captures its output. */
export async function runInProcess(spec: CliSpec, argv: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const code = await runCli(spec, argv, {
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    stdout,
    stderr,
    env: options.env ?? { PATH: process.env['PATH'] ?? '' },
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, stdout: out(), stderr: err() };
}

/** The path of a package's bin script, e.g. binPath('filter', 'hermes-filter'). */
export function binPath(pkg: string, bin: string): string {
  return join(REPO_ROOT, 'packages', pkg, 'bin', `${bin}.js`);
}

/**
 * Runs a script with node as a real process (stdin from options.input), waiting for it to exit.
 * The environment is only what options.env gives (plus PATH), so tests never leak the caller's.
 */
export function runProcess(script: string, args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return runCommand(process.execPath, [script, ...args], options);
}

/** Runs any program (bash, GNU parallel, make) as runProcess runs node: same environment rule, same result. */
export function runCommand(program: string, args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const command = [program, ...args];
    const [file, ...argv] =
      options.maxOpenFiles === undefined ? command : ['/bin/bash', '-c', `ulimit -n ${options.maxOpenFiles} && exec "$@"`, 'bash', ...command];
    const child = spawn(file ?? program, argv, {
      cwd: options.cwd ?? REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code: code ?? (signal ? 128 + 15 : -1), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

const scratch: string[] = [];

/** A fresh temp directory, removed after the current test. */
export function tempDir(prefix = 'hermes-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes files into a directory: { 'a.jsonl': '...', 'sub/b.txt': '...' }. */
export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
}

/** JSONL text from values, one compact line each, with a trailing newline. */
export function jsonl(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join('\n') + (values.length > 0 ? '\n' : '');
}

/** Parsed JSONL output (throws on a bad line, which is itself a test failure). */
export function parseJsonl(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}
