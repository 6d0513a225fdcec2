// hermes-generate run mode (--run-name) against its stream mode (`node bench/generate-run.mjs`), with
// the scripted endpoint served from this process:
//   overhead: N prompts (default 10,000; two model turns each, the in-memory todo tool), zero latency,
//             40 prompts at once (stream: -c 40; run: --batch-size 10 --num-workers 4), the two
//             modes run in turn --repeat times, the fastest of each counting (load from elsewhere
//             only slows a run down; on a shared machine one run of each may differ by 20%).
//             Prompts per second and CPU per turn of each mode (CPU of the hermes-generate process
//             only), and the run mode's overhead in CPU per turn (target <= 10%); peak RSS of each
//             (target well under 500 MB). Beside it, what the file system alone charges for the
//             run's batch files: the same number of files of the same sizes, each created,
//             written once, fsynced and closed, in CPU time (file creation is cheap on most
//             disks, but costs up to 1 ms of system time on some virtual machines).
//   journal:  the call journal's share of run mode: the same runs with --no-journal, in turn with the
//             others, fastest counting (CPU per turn with and without it); and in the gateway part, a
//             second 1 s run with --no-journal (wall time and CPU per call with and without it).
//   resume:   --resume of the fastest finished run, --repeat times (the fastest counts): its wall time as a
//             share of the run's (target < 5%).
//   gateway:  run mode, --max-concurrency 512, every reply 1 s late, 8,192 prompts of two calls (32 s
//             at the ideal rate): calls per second as a share of the ideal 512/s (target >= 0.9),
//             process start and exit included, and peak RSS. The target is a rate the run sustains:
//             over a run of 8 s (2,048 prompts), what it costs once (process start, the first
//             round's launch, the last round's tail; about 1.2 s here) would alone be 15%.
// Writes bench/results/generate-run.json; exits 1 when a target is missed (--no-fail: report only).
// Needs the build (npx tsc -b).
import { closeSync, fsyncSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchParts } from './bench-parts.mjs';
import { mustSucceed, runGenerate } from './generate-process.mjs';
import { exitWithUsage, parseFlags, resultsFile, wholeNumber } from './cli-args.mjs';

const OVERHEAD_TARGET = 0.1;
const RESUME_TARGET = 0.05;
const RSS_TARGET_MB = 500;
const GATEWAY_CONCURRENCY = 512;
const GATEWAY_LATENCY_MS = 1000;
const GATEWAY_TARGET = 0.9;
const PARTS = ['overhead', 'gateway'];
const USAGE = `usage: node bench/generate-run.mjs [--prompts N] [--repeat N] [--gateway-prompts N] [--only overhead|gateway] [--no-fail] [--out DIR]
  --prompts N          prompts of the zero-latency runs (default 10000; 2 model turns each)
  --repeat N           runs of each mode at zero latency, in turn (default 3; the fastest counts)
  --gateway-prompts N  prompts of the 1 s, --max-concurrency 512 run (default 8192)
  --only PART          run one part, overhead (with resume) or gateway, and leave the results file as it is
  --no-fail            report a miss without exiting 1
  --out DIR            write generate-run.json into DIR, not bench/results/ (a trial run that leaves the results alone)`;

function options() {
  const values = parseFlags(
    {
      prompts: { type: 'string', default: '10000' },
      repeat: { type: 'string', default: '3' },
      'gateway-prompts': { type: 'string', default: '8192' },
      only: { type: 'string' },
      'no-fail': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    USAGE,
  );
  if (values.only !== undefined && !PARTS.includes(values.only))
    exitWithUsage(`--only takes ${PARTS.join(' or ')} (got ${JSON.stringify(values.only)})\n${USAGE}`);
  return {
    parts: values.only === undefined ? PARTS : [values.only],
    prompts: wholeNumber('--prompts', values.prompts, 1),
    repeat: wholeNumber('--repeat', values.repeat, 1),
    gatewayPrompts: wholeNumber('--gateway-prompts', values['gateway-prompts'], 1),
    noFail: values['no-fail'],
    resultsFile: resultsFile(values.out, 'generate-run.json'),
  };
}

const SCRIPT = {
  sequences: [
    {
      match: { regex: '.' },
      replies: [
        { reasoning: 'I plan first.', tool_calls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'The task', status: 'completed' }] } }] },
        { reasoning: 'Done; time to answer.', content: 'The task is done.' },
      ],
    },
  ],
};

/** One hermes-generate process that must succeed; resolves with its wall time, CPU, peak RSS and records. */
async function generate(endpoint, dir, prompts, args) {
  const { records, wallS, cpuS, stats } = mustSucceed(await runGenerate(endpoint, dir, args, { measure: true }), args);
  return { prompts, records, wallS, cpuS, peakRssMb: stats.peak_rss_mb };
}

function dataset(dir, prompts) {
  writeFileSync(
    join(dir, 'prompts.jsonl'),
    `${Array.from({ length: prompts }, (_, i) => JSON.stringify({ prompt: `Benchmark task ${i}: plan it, then answer.` })).join('\n')}\n`,
  );
}

/** The run directory's batch files: name and size. */
function batchFiles(runDir) {
  return readdirSync(runDir)
    .filter((name) => /^batch_\d+\.jsonl$/.test(name))
    .map((name) => ({ name, bytes: statSync(join(runDir, name)).size }));
}

/**
 * CPU time of this process to create as many files of the same sizes in a new directory beside
 * them, each written once, fsynced and closed: what the file system alone charges for a run's
 * batch files, at least (the run may fsync a file more than once).
 */
function fileSystemFloor(dir, files) {
  const target = mkdtempSync(join(dir, 'fs-floor-'));
  const before = process.cpuUsage();
  for (const { name, bytes } of files) {
    const fd = openSync(join(target, name), 'ax');
    writeSync(fd, Buffer.alloc(bytes, 0x61));
    fsyncSync(fd);
    closeSync(fd);
  }
  const used = process.cpuUsage(before);
  rmSync(target, { recursive: true, force: true });
  return (used.user + used.system) / 1e6;
}

/** Stream mode against run mode at zero latency, then resume of the finished run: report fields, lines and misses. */
async function overheadPart(startScriptedEndpoint, dir, opts) {
  dataset(dir, opts.prompts);
  const endpoint = await startScriptedEndpoint({ script: SCRIPT, latencyMs: 0, recordRequests: false });
  process.stderr.write(`bench: generate run mode vs stream mode, ${opts.prompts} prompts, zero latency, ${opts.repeat} of each in turn\n`);
  const empty = mkdtempSync(join(dir, 'empty-'));
  dataset(empty, 0);
  const startup = await generate(endpoint, empty, 0, ['-c', '40']);
  const runArgs = (name) => ['--run-name', name, '--batch-size', '10', '--num-workers', '4'];
  const streams = [];
  const runs = [];
  const unjournaled = [];
  for (let i = 0; i < opts.repeat; i += 1) {
    streams.push(await generate(endpoint, dir, opts.prompts, ['-c', '40']));
    runs.push({ ...(await generate(endpoint, dir, opts.prompts, runArgs(`bench-${i}`))), name: `bench-${i}` });
    unjournaled.push(await generate(endpoint, dir, opts.prompts, [...runArgs(`bench-nojournal-${i}`), '--no-journal']));
  }
  const fastest = (results, key = 'cpuS') => results.reduce((best, result) => (result[key] < best[key] ? result : best));
  const stream = fastest(streams);
  const { name: runName, ...run } = fastest(runs);
  const noJournal = fastest(unjournaled);
  const resumes = [];
  for (let i = 0; i < opts.repeat; i += 1) resumes.push(await generate(endpoint, dir, opts.prompts, [...runArgs(runName), '--resume']));
  const resume = fastest(resumes, 'wallS');
  await endpoint.close();
  const files = batchFiles(join(dir, 'data', runName));
  const floorCpuS = fileSystemFloor(dir, files);
  for (const [name, result, expected] of [
    ...streams.map((each) => ['stream', each, opts.prompts]),
    ...runs.map((each) => ['run', each, opts.prompts]),
    ...unjournaled.map((each) => ['run --no-journal', each, opts.prompts]),
    ...resumes.map((each) => ['resume', each, 0]),
  ]) {
    if (result.records !== expected) throw new Error(`${name}: expected ${expected} records on stdout, got ${result.records}`);
  }
  const turns = opts.prompts * 2;
  const perTurn = (result) => ((result.cpuS - startup.cpuS) * 1000) / turns;
  const floorMsPerTurn = (floorCpuS * 1000) / turns;
  const report = {
    startupCpuS: startup.cpuS,
    repeat: opts.repeat,
    stream: { ...stream, promptsPerS: opts.prompts / stream.wallS, cpuMsPerTurn: perTurn(stream), cpuSOfEach: streams.map((r) => r.cpuS) },
    run: { ...run, promptsPerS: opts.prompts / run.wallS, cpuMsPerTurn: perTurn(run), cpuSOfEach: runs.map((r) => r.cpuS) },
    overhead: {
      cpuPerTurn: perTurn(run) / perTurn(stream) - 1,
      wall: run.wallS / stream.wallS - 1,
      target: OVERHEAD_TARGET,
      fileSystem: { files: files.length, cpuS: floorCpuS, shareOfStream: floorMsPerTurn / perTurn(stream) },
      beyondFileSystem: (perTurn(run) - floorMsPerTurn) / perTurn(stream) - 1,
    },
    resume: { ...resume, shareOfRun: resume.wallS / run.wallS, target: RESUME_TARGET },
    journal: {
      withoutCpuMsPerTurn: perTurn(noJournal),
      withCpuMsPerTurn: perTurn(run),
      cpuPerTurn: perTurn(run) / perTurn(noJournal) - 1,
      cpuSOfEachWithout: unjournaled.map((r) => r.cpuS),
    },
  };
  const cpuOfEach = (results) => results.map((r) => r.cpuS.toFixed(2)).join(', ');
  const lines = [
    `${opts.prompts} prompts x 2 turns, zero latency, 40 at once; fastest of ${opts.repeat} runs of each mode, in turn`,
    `stream:  ${report.stream.promptsPerS.toFixed(0)} prompts/s, ${report.stream.cpuMsPerTurn.toFixed(2)} ms CPU per turn, peak RSS ${stream.peakRssMb} MB (CPU-s of each run: ${cpuOfEach(streams)})`,
    `run:     ${report.run.promptsPerS.toFixed(0)} prompts/s, ${report.run.cpuMsPerTurn.toFixed(2)} ms CPU per turn, peak RSS ${run.peakRssMb} MB (CPU-s of each run: ${cpuOfEach(runs)})`,
    `overhead of the run directory: ${pct(report.overhead.cpuPerTurn)} CPU per turn, ${pct(report.overhead.wall)} wall (target <= ${pct(OVERHEAD_TARGET)} CPU)`,
    `         of which the file system alone: ${files.length} batch files created, written, fsynced: ${floorCpuS.toFixed(2)} CPU-s = ${pct(report.overhead.fileSystem.shareOfStream)} of stream mode's CPU; beyond it: ${pct(report.overhead.beyondFileSystem)}`,
    `call journal: ${report.journal.withoutCpuMsPerTurn.toFixed(2)} -> ${report.journal.withCpuMsPerTurn.toFixed(2)} ms CPU per turn = ${pct(report.journal.cpuPerTurn)} of run mode without it (CPU-s of each --no-journal run: ${cpuOfEach(unjournaled)})`,
    `resume of the finished run: ${resume.wallS.toFixed(2)} s = ${pct(report.resume.shareOfRun)} of the run's ${run.wallS.toFixed(1)} s (target < ${pct(RESUME_TARGET)})`,
  ];
  const misses = [
    ...(report.overhead.cpuPerTurn > OVERHEAD_TARGET
      ? [`run-directory overhead ${pct(report.overhead.cpuPerTurn)} CPU per turn is over ${pct(OVERHEAD_TARGET)}`]
      : []),
    ...(report.resume.shareOfRun >= RESUME_TARGET ? [`resume took ${pct(report.resume.shareOfRun)} of the run`] : []),
    ...([stream, run].some((r) => r.peakRssMb >= RSS_TARGET_MB) ? [`a peak RSS reached ${RSS_TARGET_MB} MB`] : []),
  ];
  return { report, lines, misses };
}

/** Run mode at --max-concurrency 512 against 1 s replies: report fields, lines and misses. */
async function gatewayPart(startScriptedEndpoint, dir, opts) {
  process.stderr.write(
    `bench: generate run mode at gateway scale, ${opts.gatewayPrompts} prompts, ${GATEWAY_LATENCY_MS} ms, --max-concurrency ${GATEWAY_CONCURRENCY}\n`,
  );
  const endpoint = await startScriptedEndpoint({ script: SCRIPT, latencyMs: GATEWAY_LATENCY_MS, recordRequests: false });
  const args = ['--run-name', 'gateway', '--batch-size', '64', '--num-workers', '8', '--max-concurrency', String(GATEWAY_CONCURRENCY)];
  // The same run over no prompts: what start-up and exit alone take, reported beside the headline (which includes them).
  const emptyDir = mkdtempSync(join(dir, 'gateway-empty-'));
  dataset(emptyDir, 0);
  const startup = await generate(endpoint, emptyDir, 0, args);
  const gatewayDir = mkdtempSync(join(dir, 'gateway-'));
  dataset(gatewayDir, opts.gatewayPrompts);
  const gateway = await generate(endpoint, gatewayDir, opts.gatewayPrompts, args);
  const plainDir = mkdtempSync(join(dir, 'gateway-nojournal-'));
  dataset(plainDir, opts.gatewayPrompts);
  const withoutJournal = await generate(endpoint, plainDir, opts.gatewayPrompts, [...args, '--no-journal']);
  await endpoint.close();
  for (const result of [gateway, withoutJournal]) {
    if (result.records !== opts.gatewayPrompts) throw new Error(`gateway: expected ${opts.gatewayPrompts} records on stdout, got ${result.records}`);
  }
  const gatewayIdeal = GATEWAY_CONCURRENCY / (GATEWAY_LATENCY_MS / 1000);
  const calls = opts.gatewayPrompts * 2;
  // Process start and exit included: a lower bound on the steady rate.
  const gatewayShare = calls / gateway.wallS / gatewayIdeal;
  const report = {
    gateway: {
      ...gateway,
      latencyMs: GATEWAY_LATENCY_MS,
      idealCallsPerS: gatewayIdeal,
      callsPerS: calls / gateway.wallS,
      cpuMsPerCall: (gateway.cpuS * 1000) / calls,
      share: gatewayShare,
      target: GATEWAY_TARGET,
      startup: { wallS: startup.wallS, cpuS: startup.cpuS },
      shareWithoutStartup: calls / (gateway.wallS - startup.wallS) / gatewayIdeal,
      cpuMsPerCallWithoutStartup: ((gateway.cpuS - startup.cpuS) * 1000) / calls,
      withoutJournal: { wallS: withoutJournal.wallS, cpuS: withoutJournal.cpuS, cpuMsPerCall: (withoutJournal.cpuS * 1000) / calls },
    },
  };
  const lines = [
    `gateway: ${calls} calls at ${GATEWAY_LATENCY_MS} ms, --max-concurrency ${GATEWAY_CONCURRENCY}: ${report.gateway.callsPerS.toFixed(0)} calls/s of ${gatewayIdeal} = ${gatewayShare.toFixed(3)} counting process start (target >= ${GATEWAY_TARGET}), ${report.gateway.cpuMsPerCall.toFixed(2)} ms CPU per call (start included), peak RSS ${gateway.peakRssMb} MB`,
    `         with --no-journal: ${withoutJournal.wallS.toFixed(2)} s wall (journal: ${gateway.wallS.toFixed(2)} s), ${report.gateway.withoutJournal.cpuMsPerCall.toFixed(2)} ms CPU per call (journal: ${report.gateway.cpuMsPerCall.toFixed(2)})`,
    `         without start-up and exit (an empty run: ${startup.wallS.toFixed(2)} s, ${startup.cpuS.toFixed(2)} CPU-s): ${report.gateway.shareWithoutStartup.toFixed(3)} of the ideal, ${report.gateway.cpuMsPerCallWithoutStartup.toFixed(2)} ms CPU per call`,
  ];
  const misses = [
    ...(gatewayShare < GATEWAY_TARGET ? [`gateway share ${gatewayShare.toFixed(3)} is under ${GATEWAY_TARGET}`] : []),
    ...(gateway.peakRssMb >= RSS_TARGET_MB ? [`the gateway run's peak RSS reached ${RSS_TARGET_MB} MB`] : []),
  ];
  return { report, lines, misses };
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;

const opts = options();
const parts = { overhead: overheadPart, gateway: gatewayPart };
await runBenchParts({
  title: 'hermes-generate run mode',
  scratchPrefix: 'hermes-bench-run-',
  parts: opts.parts.map((part) => (startScriptedEndpoint, dir) => parts[part](startScriptedEndpoint, dir, opts)),
  complete: opts.parts.length === PARTS.length,
  resultsFile: opts.resultsFile,
  noFail: opts.noFail,
});
