// hermes-generate with real tool processes (`node bench/generate-tools.mjs`), against the scripted
// endpoint served from this process. Every prompt asks for its own token, and the scripted model runs
// `echo <token>` with the terminal tool, so each record's terminal result must hold exactly that token:
// a result read short (once 179 of 982 under this load) or another prompt's is caught, not counted.
//   sandbox: the start-up cost of the namespace sandbox per tool call: 200 `true` commands one at a
//            time through the tool process pool, under --sandbox none and each sandbox that works here.
//   load:    1,000 prompts, --toolsets terminal,file, -c 256, every reply 200 ms late, sandbox auto:
//            exit 0, every record present and right, no warning, no failed prompt; calls per second
//            and hermes-generate's CPU per model turn (its own process, not the tool processes).
//   none:    the same run under --sandbox none: CPU per model turn without the sandbox.
//   fds:     the same prompts at -c 128 under `ulimit -n 256` (the macOS default): exit 0, all right,
//            no workspace left behind.
// Writes bench/results/generate-tools.json; exits 1 when a check fails (--no-fail: report only).
// Prompts that fail on a connection reset are counted apart (the endpoint client's retries own them).
// Needs the build (npx tsc -b).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseFlags, resultsFile, shownPath, wholeNumber, writeResults } from './cli-args.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT}packages/generate/bin/hermes-generate.js`;
const TESTKIT = `${ROOT}packages/testkit/dist/index.js`;
const TOOLS = `${ROOT}packages/generate/dist/tools/`;
// Loaded once the build is known to be there (main).
let core;
let testkit;
const SANDBOX_CALLS = 200;
const USAGE = `usage: node bench/generate-tools.mjs [--prompts N] [--concurrency N] [--latency-ms N] [--no-fail] [--out DIR]
  --prompts N      prompts of each run (default 1000; two model calls and one command each)
  --concurrency N  -c of the load runs (default 256; the ulimit run uses half)
  --latency-ms N   delay of every reply (default 200)
  --no-fail        report a failed check without exiting 1
  --out DIR        write generate-tools.json into DIR, not bench/results/ (a trial run that leaves the results alone)`;

function options() {
  const values = parseFlags(
    {
      prompts: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '256' },
      'latency-ms': { type: 'string', default: '200' },
      'no-fail': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    USAGE,
  );
  return {
    prompts: wholeNumber('--prompts', values.prompts, 1),
    concurrency: wholeNumber('--concurrency', values.concurrency, 2),
    latencyMs: wholeNumber('--latency-ms', values['latency-ms'], 0),
    noFail: values['no-fail'],
    resultsFile: resultsFile(values.out, 'generate-tools.json'),
  };
}

/** Milliseconds per `true` command, one at a time, through the run's tool process pool. */
async function sandboxCost() {
  const { ToolProcesses } = await import(`${TOOLS}toolProcesses.js`);
  const { hostSandbox, isolationWorks } = await import(`${TOOLS}sandbox.js`);
  const { toolEnv } = await import(`${TOOLS}toolEnv.js`);
  const env = toolEnv(process.env);
  const cost = {};
  for (const isolation of ['none', 'bwrap', 'unshare']) {
    const sandbox = hostSandbox(isolation, undefined, env);
    if (isolation !== 'none' && !isolationWorks(sandbox, env)) continue;
    const pool = new ToolProcesses({ limit: 1, isolation: sandbox });
    const started = performance.now();
    for (let i = 0; i < SANDBOX_CALLS; i += 1) {
      const outcome = await pool.run({ file: '/bin/sh', args: ['-c', 'true'], cwd: tmpdir(), env, timeoutMs: 10_000, maxOutputBytes: 1000 });
      if (outcome.exitCode !== 0) throw new Error(`true under ${isolation} exited ${outcome.exitCode}: ${outcome.output}`);
    }
    cost[isolation] = (performance.now() - started) / SANDBOX_CALLS;
  }
  return cost;
}

async function runGenerate(endpoint, prompts, { concurrency, sandbox, maxOpenFiles }) {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-tools-'));
  const cpuOut = join(dir, 'cpu.json');
  const input = `${prompts.map((row) => JSON.stringify(row)).join('\n')}\n`;
  const command = [
    process.execPath,
    '--import',
    `${ROOT}bench/cpu-usage-hook.mjs`,
    BIN,
    '--base-url',
    endpoint.url,
    '--model',
    'bench-model',
    '--toolsets',
    'terminal,file',
    '-c',
    String(concurrency),
    '--seed',
    '1',
    '--sandbox',
    sandbox,
    '--workspace-root',
    join(dir, 'workspaces'),
  ];
  const [file, ...args] = maxOpenFiles === undefined ? command : ['/bin/bash', '-c', `ulimit -n ${maxOpenFiles} && exec "$@"`, 'bash', ...command];
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', HERMES_API_KEY: 'sk-bench-not-a-real-key', BENCH_CPU_OUT: cpuOut };
  const started = performance.now();
  const child = spawn(file, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  child.stdin.end(input);
  const code = await new Promise((resolve) => child.on('close', resolve));
  const wallS = (performance.now() - started) / 1000;
  const records =
    stdout.trim() === ''
      ? []
      : stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
  const wrong = records.filter((record) => !holdsOwnToken(record)).map((record) => record.id);
  const failed = stderr.split('\n').filter((line) => /failed, no trajectory/.test(line));
  const workspacesLeft = existsSync(join(dir, 'workspaces')) ? readdirSync(join(dir, 'workspaces')).length : 0;
  const cpu = existsSync(cpuOut) ? JSON.parse(readFileSync(cpuOut, 'utf8')) : { user: 0, system: 0 };
  rmSync(dir, { recursive: true, force: true });
  const turns = records.reduce((sum, r) => sum + r.api_calls, 0);
  const problems = [
    ...(code === 0 ? [] : [`exit ${code}: ${stderr.trim().split('\n').slice(-2).join(' | ')}`]),
    ...(records.length === prompts.length ? [] : [`${records.length} records of ${prompts.length}`]),
    ...(wrong.length === 0 ? [] : [`${wrong.length} records whose terminal result is not their own token (${wrong.slice(0, 5).join(', ')})`]),
    ...(failed.length === 0 ? [] : [`${failed.length} prompts failed (${failed.filter((l) => l.includes('ECONNRESET')).length} on ECONNRESET): ${failed[0]}`]),
    ...(/Warning|MaxListeners/.test(stderr) ? [`a Node warning on stderr: ${/.*Warning.*/.exec(stderr)?.[0]}`] : []),
    ...(workspacesLeft === 0 ? [] : [`${workspacesLeft} workspaces left behind`]),
  ];
  return {
    prompts: prompts.length,
    concurrency,
    sandbox,
    maxOpenFiles: maxOpenFiles ?? null,
    exitCode: code,
    records: records.length,
    turns,
    failedPrompts: failed.length,
    econnreset: failed.filter((l) => l.includes('ECONNRESET')).length,
    wrongResults: wrong.length,
    wallS,
    callsPerS: turns / wallS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    cpuMsPerTurn: turns === 0 ? null : (cpu.user + cpu.system) / 1e3 / turns,
    sandboxLine: /tool commands run [^\n]*/.exec(stderr)?.[0] ?? null,
    problems,
  };
}

/** One tool result: terminal's `{"output": <its own token>, "exit_code": 0, "error": null}`. */
function holdsOwnToken(record) {
  const results = record.conversations.filter((turn) => turn.from === 'tool').flatMap((turn) => core.parseToolValue(turn.value));
  return (
    results.length === 1 && JSON.stringify({ name: results[0].name, content: results[0].content }) === JSON.stringify(testkit.expectedEchoResult(record.id))
  );
}

async function main() {
  const opts = options();
  if (!existsSync(TESTKIT) || !existsSync(`${TOOLS}toolProcesses.js`)) exitWithUsage('packages are not built: run `npx tsc -b` first');
  core = await import(`${ROOT}packages/core/dist/index.js`);
  testkit = await import(TESTKIT);
  const loadBefore = loadavg();

  process.stderr.write(`bench: sandbox start-up cost (${SANDBOX_CALLS} commands each)\n`);
  const cost = await sandboxCost();

  const { prompts, script } = testkit.echoTokens(opts.prompts);
  const endpoint = await testkit.startScriptedEndpoint({ script, latencyMs: opts.latencyMs, recordRequests: false });
  const runs = {};
  for (const [name, settings] of [
    ['load', { concurrency: opts.concurrency, sandbox: 'auto' }],
    ['none', { concurrency: opts.concurrency, sandbox: 'none' }],
    ['fds', { concurrency: Math.floor(opts.concurrency / 2), sandbox: 'auto', maxOpenFiles: 256 }],
  ]) {
    process.stderr.write(
      `bench: generate-tools ${name} run (${opts.prompts} prompts, ${opts.latencyMs} ms, -c ${settings.concurrency}, --sandbox ${settings.sandbox}${settings.maxOpenFiles ? `, ulimit -n ${settings.maxOpenFiles}` : ''})\n`,
    );
    runs[name] = await runGenerate(endpoint, prompts, settings);
  }
  await endpoint.close();

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, loadBefore, loadAfter: loadavg() },
    sandboxMsPerCall: cost,
    runs,
  };
  writeResults(opts.resultsFile, report);

  const costLine = Object.entries(cost)
    .map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`)
    .join(', ');
  const line = (name, r) =>
    `${name.padEnd(5)}: ${r.records}/${r.prompts} records, ${r.wrongResults} wrong results, ${r.failedPrompts} failed (${r.econnreset} ECONNRESET), exit ${r.exitCode}, ` +
    `${r.wallS.toFixed(1)} s, ${r.callsPerS.toFixed(0)} calls/s, ${r.cpuMsPerTurn?.toFixed(2) ?? '-'} ms CPU per model turn [${r.sandboxLine ?? 'no sandbox line'}]`;
  process.stdout.write(
    `${[
      `hermes-generate with real tools, load average ${loadBefore.map((v) => v.toFixed(1)).join(' ')} on ${cpus().length} CPUs`,
      `sandbox: per tool call (sh -c true, one at a time): ${costLine}`,
      ...Object.entries(runs).map(([name, r]) => line(name, r)),
      `written to ${shownPath(opts.resultsFile)}`,
    ].join('\n')}\n`,
  );
  const problems = Object.entries(runs).flatMap(([name, r]) => r.problems.map((p) => `${name} run: ${p}`));
  if (problems.length > 0) {
    process.stderr.write(problems.map((p) => `bench: ${p}\n`).join(''));
    if (!opts.noFail) process.exit(1);
  }
}

await main();
