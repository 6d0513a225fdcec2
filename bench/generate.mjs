// hermes-generate's own costs (`node bench/generate.mjs`), against the scripted endpoint served from
// this process, so nothing outside the machine is measured:
// Both runs offer only the in-memory todo tool: no process is spawned per call, and no workspace
// directory is made per prompt (a prompt whose tools never touch files gets none), so they measure
// the agent loop itself.
//   cpu:     zero latency: CPU time of the
//            hermes-generate process per model turn (less the CPU of a run with no prompts: start-up,
//            registry and schema loading), and turns per second.
//   latency: every reply 100 ms late, --concurrency 32: model calls per second as a share of the
//            ideal 32 / 0.1 s = 320/s (target >= 0.9), counted from the first request to the last
//            record written (the share counting process start and exit is reported too).
//   load:    every reply 1 s late, --concurrency 512, 2,048 prompts of two model calls each: exit 0,
//            every record whole, no warning on stderr, and calls per second as a share of the ideal
//            512/s (target >= 0.7 on a 2-core machine that also runs the endpoint).
// Writes bench/results/generate.json; exits 1 when the latency share misses its target (--no-fail:
// report only). Needs the build (npx tsc -b).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseFlags, resultsFile, shownPath, wholeNumber, writeResults } from './cli-args.mjs';
import { mustSucceed, runGenerate } from './generate-process.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TESTKIT = `${ROOT}packages/testkit/dist/index.js`;
const LATENCY_MS = 100;
const LATENCY_CONCURRENCY = 32;
const LATENCY_TARGET = 0.9;
const LOAD_LATENCY_MS = 1000;
const LOAD_CONCURRENCY = 512;
const LOAD_TARGET = 0.7;
const USAGE = `usage: node bench/generate.mjs [--cpu-prompts N] [--latency-prompts N] [--load-prompts N] [--no-fail] [--out DIR]
  --cpu-prompts N      prompts of the zero-latency run (default 300; 9 model turns each)
  --latency-prompts N  prompts of the 100 ms run (default 384; 3 model turns each)
  --load-prompts N     prompts of the 1 s, -c 512 run (default 2048; 2 model turns each)
  --no-fail            report a miss without exiting 1
  --out DIR            write generate.json into DIR, not bench/results/ (a trial run that leaves the results alone)`;

function options() {
  const values = parseFlags(
    {
      'cpu-prompts': { type: 'string', default: '300' },
      'latency-prompts': { type: 'string', default: '384' },
      'load-prompts': { type: 'string', default: '2048' },
      'no-fail': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    USAGE,
  );
  return {
    cpuPrompts: wholeNumber('--cpu-prompts', values['cpu-prompts'], 1),
    latencyPrompts: wholeNumber('--latency-prompts', values['latency-prompts'], 1),
    loadPrompts: wholeNumber('--load-prompts', values['load-prompts'], 1),
    noFail: values['no-fail'],
    resultsFile: resultsFile(values.out, 'generate.json'),
  };
}

/** Every prompt: `toolTurns` replies that update the todo list, then a final answer. */
function script(toolTurns) {
  const todo = (step) => ({
    reasoning: `Step ${step}: I update the plan before going on, so the list says what is done and what is next.`,
    content: step === 1 ? 'Planning the work.' : null,
    tool_calls: [
      {
        name: 'todo',
        arguments: {
          todos: [1, 2, 3].map((n) => ({
            id: String(n),
            content: `Part ${n} of the task`,
            status: n < step ? 'completed' : n === step ? 'in_progress' : 'pending',
          })),
          merge: false,
        },
      },
    ],
  });
  const replies = Array.from({ length: toolTurns }, (_, i) => todo(i + 1));
  replies.push({ reasoning: 'Every part is done; time to answer.', content: 'All parts of the task are done.' });
  return { sequences: [{ match: { regex: '.' }, replies }] };
}

/** `prompts` prompts of `toolTurns` todo turns and an answer, fed on stdin at -c `concurrency`. */
async function runPrompts(endpoint, prompts, concurrency, toolTurns) {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-generate-'));
  const input = `${Array.from({ length: prompts }, (_, i) => JSON.stringify({ prompt: `Benchmark task ${i}: plan it in three parts.` })).join('\n')}\n`;
  const args = ['-c', String(concurrency), '--max-turns', String(toolTurns + 1)];
  const started = performance.now();
  let firstRequest = null;
  const watch = setInterval(() => {
    if (firstRequest === null && endpoint.requests.length > 0) firstRequest = performance.now();
  }, 2);
  const run = await runGenerate(endpoint, dir, args, { measure: true, stdin: input, keepStdout: true }).finally(() => clearInterval(watch));
  mustSucceed(run, args);
  if (run.cpuS === undefined) throw new Error('hermes-generate left no CPU figure (bench/cpu-usage-hook.mjs) or statistics');
  const records =
    run.stdout.trim() === ''
      ? []
      : run.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
  const turns = records.reduce((sum, r) => sum + r.api_calls, 0);
  if (records.length !== prompts || turns !== prompts * (toolTurns + 1) || !records.every((r) => r.completed)) {
    throw new Error(`expected ${prompts} completed records of ${toolTurns + 1} turns, got ${records.length} records and ${turns} turns`);
  }
  rmSync(dir, { recursive: true, force: true });
  return {
    prompts,
    turns,
    concurrency,
    wallS: run.wallS,
    // From the first model request to the last record: the model calls, without process start and exit.
    steadyS: ((run.lastRecordAt ?? started + run.wallS * 1000) - (firstRequest ?? started)) / 1000,
    cpuS: run.cpuS,
  };
}

async function main() {
  const opts = options();
  if (!existsSync(TESTKIT) || !existsSync(`${ROOT}packages/generate/dist/main.js`)) exitWithUsage('packages are not built: run `npx tsc -b` first');
  const { startScriptedEndpoint } = await import(TESTKIT);
  const loadBefore = loadavg();

  process.stderr.write(`bench: generate cpu run (${opts.cpuPrompts} prompts, zero latency), and one without prompts\n`);
  let endpoint = await startScriptedEndpoint({ script: script(8), latencyMs: 0 });
  const startup = await runPrompts(endpoint, 0, 8, 8);
  const cpuRun = await runPrompts(endpoint, opts.cpuPrompts, 8, 8);
  await endpoint.close();

  process.stderr.write(`bench: generate latency run (${opts.latencyPrompts} prompts, ${LATENCY_MS} ms, concurrency ${LATENCY_CONCURRENCY})\n`);
  endpoint = await startScriptedEndpoint({ script: script(2), latencyMs: LATENCY_MS });
  const latencyRun = await runPrompts(endpoint, opts.latencyPrompts, LATENCY_CONCURRENCY, 2);
  await endpoint.close();

  process.stderr.write(`bench: generate load run (${opts.loadPrompts} prompts, ${LOAD_LATENCY_MS} ms, concurrency ${LOAD_CONCURRENCY})\n`);
  endpoint = await startScriptedEndpoint({ script: script(1), latencyMs: LOAD_LATENCY_MS });
  const loadRun = await runPrompts(endpoint, opts.loadPrompts, LOAD_CONCURRENCY, 1);
  await endpoint.close();
  const loadIdeal = LOAD_CONCURRENCY / (LOAD_LATENCY_MS / 1000);

  const ideal = LATENCY_CONCURRENCY / (LATENCY_MS / 1000);
  const callsPerS = latencyRun.turns / latencyRun.steadyS;
  const share = callsPerS / ideal;
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, loadBefore, loadAfter: loadavg() },
    cpu: {
      ...cpuRun,
      startupCpuS: startup.cpuS,
      cpuMsPerTurn: ((cpuRun.cpuS - startup.cpuS) * 1000) / cpuRun.turns,
      turnsPerCpuS: cpuRun.turns / (cpuRun.cpuS - startup.cpuS),
      turnsPerWallS: cpuRun.turns / cpuRun.steadyS,
    },
    latency: {
      ...latencyRun,
      latencyMs: LATENCY_MS,
      idealCallsPerS: ideal,
      callsPerS,
      share,
      shareWithStartup: latencyRun.turns / latencyRun.wallS / ideal,
      target: LATENCY_TARGET,
    },
    load: {
      ...loadRun,
      latencyMs: LOAD_LATENCY_MS,
      idealCallsPerS: loadIdeal,
      callsPerS: loadRun.turns / loadRun.steadyS,
      share: loadRun.turns / loadRun.steadyS / loadIdeal,
      shareWithStartup: loadRun.turns / loadRun.wallS / loadIdeal,
      target: LOAD_TARGET,
    },
  };
  writeResults(opts.resultsFile, report);

  const c = report.cpu;
  const l = report.latency;
  const o = report.load;
  process.stdout.write(
    `${[
      `hermes-generate, load average ${loadBefore.map((v) => v.toFixed(1)).join(' ')} on ${cpus().length} CPUs`,
      `cpu:     ${c.turns} turns (${c.prompts} prompts x 9, todo tool, zero latency, -c ${c.concurrency}): ${c.cpuMsPerTurn.toFixed(2)} ms CPU per turn = ${c.turnsPerCpuS.toFixed(0)} turns per CPU-second (start-up ${c.startupCpuS.toFixed(2)} s CPU not counted); ${c.turnsPerWallS.toFixed(0)} turns/s wall (endpoint on the same machine)`,
      `latency: ${l.turns} calls at ${LATENCY_MS} ms, -c ${LATENCY_CONCURRENCY}: ${l.callsPerS.toFixed(0)} calls/s of the ideal ${ideal.toFixed(0)} = ${l.share.toFixed(3)} (target >= ${LATENCY_TARGET}); ${l.shareWithStartup.toFixed(3)} counting process start`,
      `load:    ${o.prompts} prompts, ${o.turns} calls at ${LOAD_LATENCY_MS} ms, -c ${LOAD_CONCURRENCY}: exit 0, every record whole, no warning; ${o.callsPerS.toFixed(0)} calls/s of the ideal ${loadIdeal.toFixed(0)} = ${o.share.toFixed(3)} (target >= ${LOAD_TARGET}); ${o.shareWithStartup.toFixed(3)} counting process start`,
      `written to ${shownPath(opts.resultsFile)}`,
    ].join('\n')}\n`,
  );
  const misses = [
    ...(share < LATENCY_TARGET ? [`latency share ${share.toFixed(3)} is under the target ${LATENCY_TARGET}`] : []),
    ...(o.share < LOAD_TARGET ? [`load share ${o.share.toFixed(3)} is under the target ${LOAD_TARGET}`] : []),
  ];
  if (misses.length > 0 && !opts.noFail) {
    process.stderr.write(misses.map((miss) => `bench: ${miss}\n`).join(''));
    process.exit(1);
  }
}

await main();
