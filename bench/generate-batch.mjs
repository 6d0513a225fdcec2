// hermes-generate --batch-api at scale (`node bench/generate-batch.mjs`), against the testkit's batch
// API served from this process: N prompts (default 1,000) of T model turns each (default 5: T - 1 calls
// of the in-memory todo tool, then the answer), every batch completing D ms after it was created
// (default 2,000). The agents run in rounds, one batch round per turn at best, so the ideal wall time is
// T x D. Reported: the wall time against that ideal (process start and exit included; target
// <= 1.5x), the rounds and batches it took, CPU per turn of the hermes-generate process, and its
// peak RSS (target well under 500 MB); and that every custom_id was submitted once, with no request
// to /chat/completions.
// Writes bench/results/generate-batch.json; exits 1 when a target is missed (--no-fail: report only).
// Needs the build (npx tsc -b).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseFlags, resultsFile, shownPath, wholeNumber, writeResults } from './cli-args.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT}packages/generate/bin/hermes-generate.js`;
const TESTKIT = `${ROOT}packages/testkit/dist/index.js`;
const WALL_TARGET = 1.5;
const RSS_TARGET_MB = 500;
const USAGE = `usage: node bench/generate-batch.mjs [--prompts N] [--turns N] [--delay-ms N] [--poll-ms N] [--no-fail] [--out DIR]
  --prompts N   prompts (default 1000)
  --turns N     model calls per prompt (default 5)
  --delay-ms N  how long each batch takes at the testkit (default 2000)
  --poll-ms N   --batch-poll-ms of the run (default 100)
  --no-fail     report a miss without exiting 1
  --out DIR     write generate-batch.json into DIR, not bench/results/ (a trial run that leaves the results alone)`;

function options() {
  const values = parseFlags(
    {
      prompts: { type: 'string', default: '1000' },
      turns: { type: 'string', default: '5' },
      'delay-ms': { type: 'string', default: '2000' },
      'poll-ms': { type: 'string', default: '100' },
      'no-fail': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    USAGE,
  );
  return {
    prompts: wholeNumber('--prompts', values.prompts, 1),
    turns: wholeNumber('--turns', values.turns, 1, 50),
    delayMs: wholeNumber('--delay-ms', values['delay-ms'], 0),
    pollMs: wholeNumber('--poll-ms', values['poll-ms'], 1),
    noFail: values['no-fail'],
    resultsFile: resultsFile(values.out, 'generate-batch.json'),
  };
}

/** Every prompt: turns - 1 todo calls, then the answer. */
function script(turns) {
  const todo = (n) => ({
    reasoning: `Step ${n}.`,
    tool_calls: [{ name: 'todo', arguments: { todos: [{ id: String(n), content: `Step ${n}`, status: 'completed' }] } }],
  });
  return {
    sequences: [
      {
        match: { regex: '.' },
        replies: [...Array.from({ length: turns - 1 }, (_, i) => todo(i + 1)), { reasoning: 'All steps done.', content: 'The task is done.' }],
      },
    ],
  };
}

async function main() {
  const opts = options();
  if (!existsSync(TESTKIT) || !existsSync(`${ROOT}packages/generate/dist/main.js`)) exitWithUsage('packages are not built: run `npx tsc -b` first');
  const { startScriptedEndpoint } = await import(TESTKIT);
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-batch-'));
  try {
    writeFileSync(
      join(dir, 'prompts.jsonl'),
      `${Array.from({ length: opts.prompts }, (_, i) => JSON.stringify({ id: `p${i}`, prompt: `Benchmark task ${i}: work through the steps, then answer.` })).join('\n')}\n`,
    );
    process.stderr.write(
      `bench: generate --batch-api, ${opts.prompts} prompts x ${opts.turns} turns, batches of ${opts.delayMs} ms, polled from ${opts.pollMs} ms\n`,
    );
    const endpoint = await startScriptedEndpoint({ script: script(opts.turns), recordRequests: false, batch: { delayMs: opts.delayMs } });
    const cpuOut = join(dir, 'cpu.json');
    const statsOut = join(dir, 'stats.json');
    const argv = [
      '--import',
      `${ROOT}bench/cpu-usage-hook.mjs`,
      BIN,
      'prompts.jsonl',
      '--base-url',
      endpoint.url,
      '--model',
      'bench-model',
      '--toolsets',
      'todo',
      '--seed',
      '1',
      '--max-turns',
      String(Math.max(opts.turns, 10)),
      '--workspace-root',
      join(dir, 'workspaces'),
      '--stats-out',
      statsOut,
      '--run-name',
      'batch',
      '--batch-api',
      '--batch-poll-ms',
      String(opts.pollMs),
    ];
    const env = { PATH: process.env.PATH ?? '', HERMES_API_KEY: 'sk-bench-not-a-real-key', BENCH_CPU_OUT: cpuOut };
    const started = performance.now();
    const child = spawn(process.execPath, argv, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let records = 0;
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop();
      records += lines.length;
    });
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const code = await new Promise((resolve) => child.on('close', resolve));
    const wallS = (performance.now() - started) / 1000;
    const batchStats = endpoint.stats.batch;
    const chatRequests = endpoint.stats.requests;
    await endpoint.close();
    if (code !== 0) throw new Error(`hermes-generate exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    if (records !== opts.prompts) throw new Error(`expected ${opts.prompts} records on stdout, got ${records}`);
    const cpu = JSON.parse(readFileSync(cpuOut, 'utf8'));
    const stats = JSON.parse(readFileSync(statsOut, 'utf8'));
    const cpuS = (cpu.user + cpu.system) / 1e6;
    const turns = opts.prompts * opts.turns;
    const idealS = (opts.turns * opts.delayMs) / 1000;
    const resubmitted = [...batchStats.submissions.values()].filter((count) => count !== 1).length;
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, loadBefore, loadAfter: loadavg() },
      batch: {
        prompts: opts.prompts,
        turnsPerPrompt: opts.turns,
        delayMs: opts.delayMs,
        pollMs: opts.pollMs,
        records,
        wallS,
        idealS,
        wallOverIdeal: idealS > 0 ? wallS / idealS : null,
        target: WALL_TARGET,
        batches: batchStats.batchesCreated,
        requestsAnswered: batchStats.requestsAnswered,
        customIdsSubmittedMoreThanOnce: resubmitted,
        chatRequests,
        cpuS,
        cpuMsPerTurn: (cpuS * 1000) / turns,
        peakRssMb: stats.peak_rss_mb,
      },
    };
    writeResults(opts.resultsFile, report);
    const ratio = report.batch.wallOverIdeal;
    process.stdout.write(
      `${[
        `hermes-generate --batch-api, load average ${loadBefore.map((v) => v.toFixed(1)).join(' ')} on ${cpus().length} CPUs`,
        `batch: ${opts.prompts} prompts x ${opts.turns} turns, batches of ${opts.delayMs} ms: ${wallS.toFixed(2)} s wall against the rounds' ideal ${idealS.toFixed(1)} s (${opts.turns} x ${opts.delayMs} ms) = ${ratio === null ? 'n/a' : `${ratio.toFixed(2)}x`} (target <= ${WALL_TARGET}x), ${batchStats.batchesCreated} batches`,
        `       ${report.batch.cpuMsPerTurn.toFixed(3)} ms CPU per turn (${cpuS.toFixed(2)} CPU-s for ${turns} turns, start included), peak RSS ${stats.peak_rss_mb} MB; ${resubmitted} custom_ids submitted more than once, ${chatRequests} requests to /chat/completions`,
        `written to ${shownPath(opts.resultsFile)}`,
      ].join('\n')}\n`,
    );
    const misses = [
      ...(ratio !== null && ratio > WALL_TARGET ? [`wall time ${ratio.toFixed(2)}x the rounds' ideal is over ${WALL_TARGET}x`] : []),
      ...(stats.peak_rss_mb >= RSS_TARGET_MB ? [`peak RSS reached ${RSS_TARGET_MB} MB`] : []),
      ...(resubmitted > 0 ? [`${resubmitted} custom_ids were submitted more than once`] : []),
      ...(chatRequests > 0 ? [`${chatRequests} requests went to /chat/completions`] : []),
    ];
    if (misses.length > 0 && !opts.noFail) {
      process.stderr.write(misses.map((miss) => `bench: ${miss}\n`).join(''));
      process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
