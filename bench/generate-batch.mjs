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
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchParts } from './bench-parts.mjs';
import { parseFlags, resultsFile, wholeNumber } from './cli-args.mjs';
import { mustSucceed, runGenerate } from './generate-process.mjs';

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

/** The one part: the run through --batch-api, against the testkit's batch API. */
function batchPart(opts) {
  return async (startScriptedEndpoint, dir) => {
    writeFileSync(
      join(dir, 'prompts.jsonl'),
      `${Array.from({ length: opts.prompts }, (_, i) => JSON.stringify({ id: `p${i}`, prompt: `Benchmark task ${i}: work through the steps, then answer.` })).join('\n')}\n`,
    );
    process.stderr.write(
      `bench: generate --batch-api, ${opts.prompts} prompts x ${opts.turns} turns, batches of ${opts.delayMs} ms, polled from ${opts.pollMs} ms\n`,
    );
    const endpoint = await startScriptedEndpoint({ script: script(opts.turns), recordRequests: false, batch: { delayMs: opts.delayMs } });
    const args = ['--max-turns', String(Math.max(opts.turns, 10)), '--run-name', 'batch', '--batch-api', '--batch-poll-ms', String(opts.pollMs)];
    let run;
    try {
      run = mustSucceed(await runGenerate(endpoint, dir, args, { measure: true }), args);
    } finally {
      await endpoint.close();
    }
    const { records, wallS, cpuS, stats } = run;
    if (records !== opts.prompts) throw new Error(`expected ${opts.prompts} records on stdout, got ${records}`);
    const batchStats = endpoint.stats.batch;
    const chatRequests = endpoint.stats.requests;
    const turns = opts.prompts * opts.turns;
    const idealS = (opts.turns * opts.delayMs) / 1000;
    const resubmitted = [...batchStats.submissions.values()].filter((count) => count !== 1).length;
    const ratio = idealS > 0 ? wallS / idealS : null;
    const batch = {
      prompts: opts.prompts,
      turnsPerPrompt: opts.turns,
      delayMs: opts.delayMs,
      pollMs: opts.pollMs,
      records,
      wallS,
      idealS,
      wallOverIdeal: ratio,
      target: WALL_TARGET,
      batches: batchStats.batchesCreated,
      requestsAnswered: batchStats.requestsAnswered,
      customIdsSubmittedMoreThanOnce: resubmitted,
      chatRequests,
      cpuS,
      cpuMsPerTurn: (cpuS * 1000) / turns,
      peakRssMb: stats.peak_rss_mb,
    };
    return {
      report: { batch },
      lines: [
        `batch: ${opts.prompts} prompts x ${opts.turns} turns, batches of ${opts.delayMs} ms: ${wallS.toFixed(2)} s wall against the rounds' ideal ${idealS.toFixed(1)} s (${opts.turns} x ${opts.delayMs} ms) = ${ratio === null ? 'n/a' : `${ratio.toFixed(2)}x`} (target <= ${WALL_TARGET}x), ${batchStats.batchesCreated} batches`,
        `       ${batch.cpuMsPerTurn.toFixed(3)} ms CPU per turn (${cpuS.toFixed(2)} CPU-s for ${turns} turns, start included), peak RSS ${stats.peak_rss_mb} MB; ${resubmitted} custom_ids submitted more than once, ${chatRequests} requests to /chat/completions`,
      ],
      misses: [
        ...(ratio !== null && ratio > WALL_TARGET ? [`wall time ${ratio.toFixed(2)}x the rounds' ideal is over ${WALL_TARGET}x`] : []),
        ...(stats.peak_rss_mb >= RSS_TARGET_MB ? [`peak RSS reached ${RSS_TARGET_MB} MB`] : []),
        ...(resubmitted > 0 ? [`${resubmitted} custom_ids were submitted more than once`] : []),
        ...(chatRequests > 0 ? [`${chatRequests} requests went to /chat/completions`] : []),
      ],
    };
  };
}

const opts = options();
await runBenchParts({
  title: 'hermes-generate --batch-api',
  scratchPrefix: 'hermes-bench-batch-',
  parts: [batchPart(opts)],
  complete: true,
  resultsFile: opts.resultsFile,
  noFail: opts.noFail,
});
