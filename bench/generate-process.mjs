// One hermes-generate process of a bench script (generate-run.mjs, generate-quota.mjs,
// generate-batch.mjs, generate.mjs): prompts.jsonl of `dir` (or the `stdin` given) against the scripted
// endpoint with the todo tool and seed 1, plus the part's own flags. With `measure`, its own CPU time (bench/cpu-usage-hook.mjs) and
// statistics.json's peak RSS come back too, charged to that process alone, not to the endpoint serving
// it from the bench's process.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT}packages/generate/bin/hermes-generate.js`;

/**
 * Resolves with { code, wallS, records (lines on stdout), lastRecordAt (performance.now() when the last
 * came), stderr (its last 20,000 characters) }, with `keepStdout` { stdout } and, with `measure`,
 * { cpuS, stats }; rejects when the process printed a Node warning.
 */
export async function runGenerate(endpoint, dir, args, { measure = false, stdin, keepStdout = false } = {}) {
  const tag = Math.random().toString(36).slice(2);
  const cpuOut = join(dir, `cpu-${tag}.json`);
  const statsOut = join(dir, `stats-${tag}.json`);
  const argv = [
    ...(measure ? ['--import', `${ROOT}bench/cpu-usage-hook.mjs`] : []),
    BIN,
    ...(stdin === undefined ? ['prompts.jsonl'] : []),
    '--base-url',
    endpoint.url,
    '--model',
    'bench-model',
    '--toolsets',
    'todo',
    '--seed',
    '1',
    '--workspace-root',
    join(dir, 'workspaces'),
    ...(measure ? ['--stats-out', statsOut] : []),
    ...args,
  ];
  const env = { PATH: process.env.PATH ?? '', HERMES_API_KEY: 'sk-bench-not-a-real-key', ...(measure ? { BENCH_CPU_OUT: cpuOut } : {}) };
  const started = performance.now();
  const child = spawn(process.execPath, argv, { cwd: dir, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  let records = 0;
  let lastRecordAt;
  let partial = '';
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    if (keepStdout) stdout += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    if (lines.length > 0) lastRecordAt = performance.now();
    records += lines.length;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  child.stdin?.end(stdin);
  const code = await new Promise((resolve) => child.on('close', resolve));
  const wallS = (performance.now() - started) / 1000;
  const warning = /Warning|MaxListeners/.exec(stderr);
  if (warning) throw new Error(`hermes-generate printed a Node warning: ${stderr.slice(warning.index).split('\n')[0]}`);
  const result = { code, wallS, records, lastRecordAt, stderr, ...(keepStdout ? { stdout } : {}) };
  if (!measure || !existsSync(cpuOut) || !existsSync(statsOut)) return result;
  const cpu = JSON.parse(readFileSync(cpuOut, 'utf8'));
  return { ...result, cpuS: (cpu.user + cpu.system) / 1e6, stats: JSON.parse(readFileSync(statsOut, 'utf8')) };
}

/** The exit of a run that had to succeed: an error naming its flags and the end of its stderr. */
export function mustSucceed(result, args) {
  if (result.code !== 0) throw new Error(`hermes-generate ${args.join(' ')} exited ${result.code}: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return result;
}
