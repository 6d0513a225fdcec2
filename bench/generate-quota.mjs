// hermes-generate run mode behind a gateway's quota (`node bench/generate-quota.mjs`), the scripted
// endpoint served from this process with the testkit's quota (packages/testkit/src/quota.ts):
//   quota:    N prompts (default 300) of 5 model calls each, default flags (40 prompts at once),
//             replies 1 s late, against a request quota of R a second, R chosen so that the calls
//             take --seconds (default 60) at the quota's own rate. For each budget-header dialect
//             (openai, anthropic, litellm, none) and Retry-After (seconds, none): the wall time as a
//             share of the ideal (calls / R; process start and exit included), 429s as a share of
//             the requests, prompts failed. Targets: >= 0.95 of the ideal with headers, >= 0.85
//             with none; 429s <= 3%; no prompt failed. Beside them, the reachable ideal: the best
//             schedule of these calls under the quota (computed: each prompt's calls go one after
//             another, so at the end fewer prompts are left than the quota can serve) plus process
//             start and exit (measured in the same part: an empty run); each row's wall time is also
//             given as a share of it.
//   floor:    the same prompts with no quota at all, R x latency of them at once (-c): the requests in
//             flight the quota allows, kept full by nothing but the prompts themselves. What it takes
//             beyond the ideal is the workload's own (process start, the last prompts' five calls in
//             a row, the first round), at -c R x latency (more in flight would pass the quota).
//   upstream: the same quota without headers, with Retry-After and without, run the way upstream's
//             batch_runner calls a model: a fixed number of retries (the client's 2) after
//             Retry-After or a backoff, no limiter. hermes-generate's stream mode is exactly that
//             client, so it stands in for upstream: prompts failed and 429s.
//   storm:    M prompts (default 1,000) of 2 calls, default flags, 27% of calls faulted (429 with
//             Retry-After 8%, 500 7%, dropped connection 6%, truncated body 5%, no answer 3%, 503
//             2%): the share done in one invocation (target >= 99%), the failures by class, and what
//             --resume leaves (target: nothing). A call that never gets an answer holds its prompt
//             for the whole --request-timeout (default 120 s) an attempt, so the wall time is mostly
//             that flag's; --storm-request-timeout S sets it (a quick trial, the test's tiny run).
// Writes bench/results/generate-quota.json; exits 1 when a target is missed (--no-fail: report only).
// Needs the build (npx tsc -b).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchParts } from './bench-parts.mjs';
import { runGenerate } from './generate-process.mjs';
import { exitWithUsage, parseFlags, resultsFile, wholeNumber } from './cli-args.mjs';

const CALLS_PER_PROMPT = 5;
/** Prompts at once in run mode with default flags (--num-workers 4 x --batch-size 10). */
const RUN_CONCURRENCY = 40;
const HEADER_STYLES = ['openai', 'anthropic', 'litellm', 'none'];
const RETRY_AFTER = ['seconds', 'none'];
/** The fixed windows of LiteLLM's quota in one run at the ideal rate. */
const LITELLM_WINDOWS = 6;
const TARGETS = { withHeaders: 0.95, withoutHeaders: 0.85, refusals: 0.03, stormDone: 0.99 };
/** Each fault's share of all calls; the testkit tries rules in order, so each rate is of the calls the rules before it left. */
const STORM_FAULTS = [
  { kind: 'rate_limit', share: 0.08, retry_after_s: 2 },
  { kind: 'server_error', share: 0.07 },
  { kind: 'drop', share: 0.06 },
  { kind: 'truncated', share: 0.05 },
  { kind: 'timeout', share: 0.03 },
  { kind: 'unavailable', share: 0.02 },
];
const PARTS = ['quota', 'floor', 'upstream', 'storm'];
const USAGE = `usage: node bench/generate-quota.mjs [--prompts N] [--seconds S] [--latency-ms N] [--storm-prompts N] [--storm-request-timeout S] [--limit-headers LIST] [--only quota|floor|upstream|storm] [--no-fail] [--out DIR]
  --prompts N        prompts of each quota run (default 300; 5 calls each)
  --seconds S        what the quota run takes at the ideal rate: R = prompts x 5 / S (default 60)
  --latency-ms N     how late each answer comes (default 1000)
  --storm-prompts N  prompts of the fault storm (default 1000; 2 calls each)
  --storm-request-timeout S
                     the storm's --request-timeout (default: hermes-generate's own, as every other flag)
  --limit-headers LIST
                     the quota part's header styles, comma-separated (default ${HEADER_STYLES.join(',')}); with fewer, the results file is left as it is
  --only PART        run one part and leave the results file as it is
  --no-fail          report a miss without exiting 1
  --out DIR          write generate-quota.json into DIR, not bench/results/`;

function options() {
  const values = parseFlags(
    {
      prompts: { type: 'string', default: '300' },
      seconds: { type: 'string', default: '60' },
      'latency-ms': { type: 'string', default: '1000' },
      'storm-prompts': { type: 'string', default: '1000' },
      'storm-request-timeout': { type: 'string' },
      'limit-headers': { type: 'string', default: HEADER_STYLES.join(',') },
      only: { type: 'string' },
      'no-fail': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    USAGE,
  );
  if (values.only !== undefined && !PARTS.includes(values.only))
    exitWithUsage(`--only takes ${PARTS.join(', ')} (got ${JSON.stringify(values.only)})\n${USAGE}`);
  const limitHeaders = values['limit-headers'].split(',');
  const unknown = limitHeaders.find((style) => !HEADER_STYLES.includes(style));
  if (unknown !== undefined) exitWithUsage(`--limit-headers takes ${HEADER_STYLES.join(', ')} (got ${JSON.stringify(unknown)})\n${USAGE}`);
  return {
    parts: values.only === undefined ? PARTS : [values.only],
    limitHeaders,
    prompts: wholeNumber('--prompts', values.prompts, 1),
    seconds: wholeNumber('--seconds', values.seconds, 1),
    latencyMs: wholeNumber('--latency-ms', values['latency-ms'], 0),
    stormPrompts: wholeNumber('--storm-prompts', values['storm-prompts'], 1),
    stormRequestTimeoutS:
      values['storm-request-timeout'] === undefined ? undefined : wholeNumber('--storm-request-timeout', values['storm-request-timeout'], 1),
    noFail: values['no-fail'],
    resultsFile: resultsFile(values.out, 'generate-quota.json'),
  };
}

/** A plan with calls - 1 todo calls, then the answer. */
function script(calls) {
  const todo = (i) => ({
    reasoning: `Step ${i + 1}.`,
    tool_calls: [{ name: 'todo', arguments: { todos: [{ id: String(i + 1), content: `step ${i + 1}`, status: 'completed' }] } }],
  });
  return {
    sequences: [{ match: { regex: '.' }, replies: [...Array.from({ length: calls - 1 }, (_, i) => todo(i)), { reasoning: 'Done.', content: 'done' }] }],
  };
}

function dataset(dir, prompts) {
  writeFileSync(join(dir, 'prompts.jsonl'), `${Array.from({ length: prompts }, (_, i) => JSON.stringify({ prompt: `Quota task ${i}.` })).join('\n')}\n`);
}

function lines(path) {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
    : [];
}

/** One run against a fresh endpoint behind the quota: wall time, calls, 429s, failures. */
async function quotaRun(startScriptedEndpoint, dir, opts, quota, mode) {
  const rps = (opts.prompts * CALLS_PER_PROMPT) / opts.seconds;
  const endpoint = await startScriptedEndpoint({
    script: script(CALLS_PER_PROMPT),
    latencyMs: opts.latencyMs,
    recordRequests: false,
    // LiteLLM counts in fixed windows (its LITELLM_RATE_LIMIT_WINDOW_SIZE): its default 60 s would hold
    // the whole run in one window, so the run spans LITELLM_WINDOWS of them.
    quota: { rps, ...quota, ...(quota.limitHeaders === 'litellm' ? { windowS: opts.seconds / LITELLM_WINDOWS } : {}) },
  });
  const runDir = mkdtempSync(join(dir, 'quota-'));
  dataset(runDir, opts.prompts);
  const args = mode === 'run' ? ['--run-name', 'quota'] : ['--rejects', 'rejects.jsonl', '-c', '40'];
  const { code, wallS, stderr } = await runGenerate(endpoint, runDir, args);
  await endpoint.close();
  const failed = mode === 'run' ? lines(join(runDir, 'data', 'quota', 'failures.jsonl')).length : lines(join(runDir, 'rejects.jsonl')).length;
  const { requests, answered, refused } = endpoint.stats;
  const idealS = answered / rps;
  const result = { mode, ...quota, rps, code, wallS, requests, answered, refused, idealS, share: idealS / wallS, refusedShare: refused / requests, failed };
  if (mode === 'run' && (code !== 0 || failed > 0)) result.lastLines = stderr.trim().split('\n').slice(-3);
  rmSync(runDir, { recursive: true, force: true });
  return result;
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;
const reachableLine = (r) =>
  `reachable ideal: ${r.wallS.toFixed(1)} s = the best schedule ${r.scheduleS.toFixed(1)} s (-c ${RUN_CONCURRENCY}, ${CALLS_PER_PROMPT} calls in a row a prompt) + process start and exit ${r.startupS.toFixed(1)} s (an empty run) = ${r.share.toFixed(3)} of calls / R`;
const row = (r) =>
  `${r.limitHeaders.padEnd(9)} retry-after ${r.retryAfter.padEnd(7)}: ${r.wallS.toFixed(1)} s for ${r.answered} calls at ${r.rps} req/s = ${r.share.toFixed(3)} of ideal${r.shareOfReachable === undefined ? '' : ` (${r.shareOfReachable.toFixed(3)} of the reachable)`}, 429s ${pct(r.refusedShare)} of ${r.requests} requests, ${r.failed} prompts failed (exit ${r.code})`;

async function quotaPart(startScriptedEndpoint, dir, opts) {
  process.stderr.write(
    `bench: run mode behind a quota, ${opts.prompts} prompts x ${CALLS_PER_PROMPT} calls, ${opts.latencyMs} ms replies, ${opts.limitHeaders.length * RETRY_AFTER.length} runs\n`,
  );
  // The reachable ideal, beside the rows: the best schedule of these calls under the quota (computed:
  // a prompt's calls go one after another, so at the end fewer prompts are left than the quota can
  // serve) plus what process start and exit take now on this machine (measured: an empty run).
  const rps = (opts.prompts * CALLS_PER_PROMPT) / opts.seconds;
  const scheduleS = bestScheduleS({ prompts: opts.prompts, latencyS: opts.latencyMs / 1000, rps });
  const startupS = (await unlimitedRun(startScriptedEndpoint, dir, { ...opts, prompts: 0 }, 'empty', [])).wallS;
  const reachable = { scheduleS, startupS, wallS: scheduleS + startupS, share: (opts.prompts * CALLS_PER_PROMPT) / rps / (scheduleS + startupS) };
  process.stderr.write(`bench:   ${reachableLine(reachable)}\n`);
  const runs = [];
  for (const limitHeaders of opts.limitHeaders) {
    for (const retryAfter of RETRY_AFTER) {
      const run = await quotaRun(startScriptedEndpoint, dir, opts, { limitHeaders, retryAfter }, 'run');
      const result = { ...run, shareOfReachable: reachable.wallS / run.wallS };
      process.stderr.write(`bench:   ${row(result)}\n`);
      runs.push(result);
    }
  }
  const misses = runs.flatMap((r) => {
    const target = r.limitHeaders === 'none' ? TARGETS.withoutHeaders : TARGETS.withHeaders;
    return [
      ...(r.share < target ? [`${r.limitHeaders}/${r.retryAfter}: ${r.share.toFixed(3)} of ideal is under ${target}`] : []),
      ...(r.refusedShare > TARGETS.refusals
        ? [`${r.limitHeaders}/${r.retryAfter}: 429s ${pct(r.refusedShare)} of requests are over ${pct(TARGETS.refusals)}`]
        : []),
      ...(r.failed > 0 || r.code !== 0 ? [`${r.limitHeaders}/${r.retryAfter}: ${r.failed} prompts failed, exit ${r.code}`] : []),
    ];
  });
  return {
    report: {
      quota: { prompts: opts.prompts, callsPerPrompt: CALLS_PER_PROMPT, latencyMs: opts.latencyMs, seconds: opts.seconds, targets: TARGETS, reachable, runs },
    },
    lines: [reachableLine(reachable), ...runs.map(row)],
    misses,
  };
}

/**
 * The wall time of a client that wastes nothing on the quota part's calls, by an event simulation: a
 * bucket of R requests one second deep, full at the start (the testkit's); RUN_CONCURRENCY prompts at
 * once, each one's calls one after another, every answer `latencyS` late; a request starts as soon as
 * the bucket and a ready prompt allow, the prompt ready longest first (giving it to the prompt with
 * the most calls left took 61.8 s instead of 60.8 at the default size). No client overhead and no
 * start-up: those the empty run measures.
 */
function bestScheduleS({ prompts, latencyS, rps }) {
  const capacity = Math.max(1, rps);
  let level = capacity;
  let at = 0;
  let started = 0;
  let end = 0;
  const active = [];
  const admit = (readyAt) => {
    if (started >= prompts) return;
    started += 1;
    active.push({ readyAt, left: CALLS_PER_PROMPT });
  };
  for (let i = 0; i < RUN_CONCURRENCY; i += 1) admit(0);
  while (active.length > 0) {
    const next = active.reduce((a, b) => (b.readyAt < a.readyAt ? b : a));
    const startAt = Math.max(next.readyAt, at + Math.max(0, 1 - level) / rps);
    level = Math.min(capacity, level + (startAt - at) * rps) - 1;
    at = startAt;
    next.left -= 1;
    next.readyAt = startAt + latencyS;
    if (next.left > 0) continue;
    active.splice(active.indexOf(next), 1);
    end = Math.max(end, next.readyAt);
    admit(next.readyAt);
  }
  return end;
}

/** One run with no quota at the endpoint, with these flags: wall time and calls answered. */
async function unlimitedRun(startScriptedEndpoint, dir, opts, name, args) {
  const endpoint = await startScriptedEndpoint({ script: script(CALLS_PER_PROMPT), latencyMs: opts.latencyMs, recordRequests: false });
  const runDir = mkdtempSync(join(dir, `${name}-`));
  dataset(runDir, opts.prompts);
  const { code, wallS } = await runGenerate(endpoint, runDir, ['--run-name', name, ...args]);
  await endpoint.close();
  rmSync(runDir, { recursive: true, force: true });
  return { code, wallS, answered: endpoint.stats.answered };
}

async function floorPart(startScriptedEndpoint, dir, opts) {
  const rps = (opts.prompts * CALLS_PER_PROMPT) / opts.seconds;
  const concurrency = Math.max(1, Math.round((rps * opts.latencyMs) / 1000));
  process.stderr.write(`bench: the workload's own floor: no quota, -c ${concurrency} (${rps} req/s x ${opts.latencyMs} ms)\n`);
  const { code, wallS, answered } = await unlimitedRun(startScriptedEndpoint, dir, opts, 'floor', ['-c', String(concurrency)]);
  const floor = { concurrency, rps, code, wallS, answered, share: answered / rps / wallS };
  return {
    report: { floor },
    lines: [`floor (no quota, -c ${concurrency}): ${wallS.toFixed(1)} s for ${answered} calls = ${floor.share.toFixed(3)} of the quota's ideal`],
    misses: [],
  };
}

async function upstreamPart(startScriptedEndpoint, dir, opts) {
  process.stderr.write('bench: the same quota without headers, upstream-style: fixed retries (2), no limiter (stream mode, -c 40)\n');
  const runs = [];
  for (const retryAfter of RETRY_AFTER) {
    const result = await quotaRun(startScriptedEndpoint, dir, opts, { limitHeaders: 'none', retryAfter }, 'stream');
    runs.push(result);
  }
  return { report: { upstream: { runs } }, lines: runs.map((r) => `upstream-style ${row(r)}`), misses: [] };
}

async function stormPart(startScriptedEndpoint, dir, opts) {
  const timeoutFlags = opts.stormRequestTimeoutS === undefined ? [] : ['--request-timeout', String(opts.stormRequestTimeoutS)];
  const flagsShown = timeoutFlags.length === 0 ? 'default flags' : timeoutFlags.join(' ');
  process.stderr.write(`bench: fault storm, ${opts.stormPrompts} prompts x 2 calls, ${flagsShown}, 27% of calls faulted\n`);
  let left = 1;
  const faults = STORM_FAULTS.map(({ share, ...rule }) => {
    const rate = share / left;
    left -= share;
    return { ...rule, rate };
  });
  const endpoint = await startScriptedEndpoint({ script: { ...script(2), faults }, latencyMs: 50, recordRequests: false, seed: 11 });
  const runDir = mkdtempSync(join(dir, 'storm-'));
  dataset(runDir, opts.stormPrompts);
  const failures = () => lines(join(runDir, 'data', 'storm', 'failures.jsonl')).map((line) => JSON.parse(line));
  const flags = ['--run-name', 'storm', ...timeoutFlags];
  const first = await runGenerate(endpoint, runDir, flags);
  const afterFirst = failures();
  const byClass = {};
  for (const f of afterFirst) byClass[f.error_class] = (byClass[f.error_class] ?? 0) + 1;
  const resumed = await runGenerate(endpoint, runDir, [...flags, '--resume']);
  const records = lines(join(runDir, 'data', 'storm', 'trajectories.jsonl')).length;
  const afterResume = failures().length;
  const stats = { ...endpoint.stats };
  await endpoint.close();
  rmSync(runDir, { recursive: true, force: true });
  const done = (opts.stormPrompts - afterFirst.length) / opts.stormPrompts;
  const storm = {
    prompts: opts.stormPrompts,
    flags: flagsShown,
    faults: STORM_FAULTS,
    first: { code: first.code, wallS: first.wallS, failed: afterFirst.length, byClass, doneShare: done },
    resume: { code: resumed.code, wallS: resumed.wallS, failedLeft: afterResume },
    records,
    endpoint: stats,
    target: TARGETS.stormDone,
  };
  const classes = Object.entries(byClass)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return {
    report: { storm },
    lines: [
      `storm (${flagsShown}): ${pct(done)} of ${opts.stormPrompts} prompts done in one invocation (${first.wallS.toFixed(1)} s, exit ${first.code}; failed: ${classes || 'none'}); --resume (${resumed.wallS.toFixed(1)} s, exit ${resumed.code}) leaves ${afterResume} failed, ${records} records`,
    ],
    misses: [
      ...(done < TARGETS.stormDone ? [`storm: ${pct(done)} done in one invocation is under ${pct(TARGETS.stormDone)}`] : []),
      ...(afterResume > 0 ? [`storm: --resume left ${afterResume} prompts failed`] : []),
    ],
  };
}

const opts = options();
const parts = { quota: quotaPart, floor: floorPart, upstream: upstreamPart, storm: stormPart };
await runBenchParts({
  title: 'hermes-generate behind a quota',
  scratchPrefix: 'hermes-bench-quota-',
  parts: opts.parts.map((part) => (startScriptedEndpoint, dir) => parts[part](startScriptedEndpoint, dir, opts)),
  complete: opts.parts.length === PARTS.length && opts.limitHeaders.length === HEADER_STYLES.length,
  resultsFile: opts.resultsFile,
  noFail: opts.noFail,
});
