// bench/RESULTS.md: the stream benchmark of bench/run.mjs (bench/results/latest.json) as a
// markdown table, the compression hermes-compress achieved in that run, with the hermes-generate
// figures of bench/generate*.mjs where their results exist, and the machine each ran on. bench/run.mjs writes it after its run; `make bench` runs
// this file again at the end (`node bench/results-md.mjs`) so that the generate figures of the
// same `make bench` are in it. Each section carries its own date and load average: the machine is
// often shared, and load only ever slows a run down.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RECORDS } from './corpus.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS_MD = `${ROOT}bench/RESULTS.md`;
const RESULTS_DIR = `${ROOT}bench/results`;

const fmt = (value, digits = 0) => (value === null || value === undefined ? '-' : value.toFixed(digits));
const pct = (share) => `${(share * 100).toFixed(0)}%`;
const load = (values) => (values ? values.map((v) => v.toFixed(1)).join(' ') : '-');
const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');
// Columns padded to their widest cell, as the repository's formatter (Biome, make lint) writes Markdown tables.
function table(header, rows) {
  const lines = [header, ...rows].map((cells) => cells.map(cell));
  const widths = header.map((_, column) => Math.max(3, ...lines.map((cells) => cells[column]?.length ?? 0)));
  const row = (cells) => `| ${widths.map((width, column) => (cells[column] ?? '').padEnd(width)).join(' | ')} |`;
  const [head, ...body] = lines;
  return [row(head), row(widths.map((width) => '-'.repeat(width))), ...body.map(row)].join('\n');
}

function machineLine({ date, node, machine }) {
  const memory = machine.memoryGb ? `, ${machine.memoryGb} GB memory` : '';
  return `${date.slice(0, 16).replace('T', ' ')} UTC, ${machine.cpus} CPUs (${machine.cpuModel ?? 'unknown'})${memory}, Node ${node}, load average ${load(machine.loadBefore)} before, ${load(machine.loadAfter)} after`;
}

function verdictOf(r) {
  if (r.status === 'skipped') return `skipped: ${r.skipReason}`;
  if (r.problems.length > 0) return `FAIL: ${r.problems.join('; ')}`;
  return r.status;
}

function streamSection(report) {
  const rows = report.results.map((r) => [
    `\`${r.name}\``,
    r.kind === 'baseline' ? `baseline: ${r.what}` : r.what,
    r.input,
    fmt(r.mbPerS, 1),
    fmt(r.recordsPerS),
    fmt(r.peakRssMb),
    r.baseline ? `${fmt(r.ratio, 2)}x ${r.baseline}` : '-',
    r.target === null || r.target === undefined ? '-' : `>= ${r.target.toFixed(2)}x`,
    verdictOf(r),
  ]);
  const corpora = Object.entries(report.corpora).map(
    ([name, c]) => `- ${name}: ${c.records} records, ${(c.bytes / 1e6).toFixed(1)} MB (\`${c.path}\`, seed ${c.seed})`,
  );
  return [
    '## The stream CLIs on the bench corpus',
    '',
    `Machine: ${machineLine(report)}.`,
    '',
    ...corpora,
    '',
    `Throughput from the fastest of ${report.method.repeat} run(s) per command, peak RSS the highest (${report.method.rssMethod}), stdout to /dev/null; MB = 10^6 bytes.`,
    'Baselines: plain Node doing the least a command of its kind must do (bench/baseline-*.mjs); `jq-*` and `python-summary` are the tools a user would otherwise reach for, measured in the same run.',
    '',
    table(['command', 'what', 'input', 'MB/s', 'records/s', 'peak RSS MB', 'ratio', 'target', 'result'], rows),
    '',
    ...comparisons(report.results),
  ];
}

/** The subjects measured against another tool (jq, the Python script) as one sentence each. */
function comparisons(results) {
  const byName = new Map(results.map((r) => [r.name, r]));
  const lines = results
    .filter((r) => r.kind === 'subject' && r.ratio !== null && r.ratio !== undefined && byName.get(r.baseline)?.kind === 'subject')
    .map(
      (r) =>
        `- \`${r.name}\`: ${fmt(r.mbPerS, 1)} MB/s, ${r.ratio.toFixed(2)}x the throughput of \`${r.baseline}\` (${fmt(byName.get(r.baseline).mbPerS, 1)} MB/s), peak RSS ${fmt(r.peakRssMb)} MB against ${fmt(byName.get(r.baseline).peakRssMb)} MB.`,
    );
  return lines.length > 0 ? ['Against the other tools:', '', ...lines, ''] : [];
}

const count = (n) => n.toLocaleString('en-US');
const percent = (share, digits = 1) => (share === null || share === undefined ? '-' : `${(share * 100).toFixed(digits)}%`);
// The issue's memory limit for hermes-compress holds on at least this much input.
const COMPRESS_RSS_INPUT_BYTES = 1e9;

/** The flags a compress subject ran with, less the bin and its --metrics-file (a temporary path). */
function compressSettings(command) {
  const args = command.split(' ').slice(2);
  const at = args.indexOf('--metrics-file');
  if (at >= 0) args.splice(at, 2);
  return args.join(' ');
}

/**
 * The compression the hermes-compress subjects achieved: counts and token totals from compress's own
 * --metrics-file, the spread of per-record ratios from the records it wrote (bench/compress-check.mjs).
 */
function compressSection(report) {
  const runs = report.results.filter((r) => r.metrics || r.figures);
  if (runs.length === 0) return [];
  const of = (r) => r.figures?.compressed ?? {};
  const statuses = (r) => {
    const byStatus = r.metrics?.by_status ?? r.figures?.statuses ?? {};
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return Object.entries(byStatus)
      .sort(([, a], [, b]) => b - a)
      .map(([status, n]) => `${status} ${count(n)} (${percent(n / total, 0)})`)
      .join(', ');
  };
  // Every record but those skipped (at or under their target) needed compression.
  const overBudget = (r) => {
    const byStatus = r.metrics?.by_status ?? r.figures?.statuses ?? {};
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    const over = total - (byStatus.skipped ?? 0);
    return `${count(over)} of ${count(total)} (${percent(over / total, 0)})`;
  };
  const reasons = (r) =>
    Object.entries(r.metrics?.by_reason ?? {})
      .sort(([, a], [, b]) => b - a)
      .map(([reason, n]) => `${reason} ${count(n)}`)
      .join(', ') || '-';
  const allKept = (r) => {
    const t = r.metrics?.tokens;
    if (!t) return '-';
    const untokenised = t.records_not_tokenised > 0 ? `; ${count(t.records_not_tokenised)} records under budget by their byte length, not tokenised` : '';
    return `${percent(t.overall_compression_ratio)} of ${count(t.total_before)} tokens${untokenised}`;
  };
  const inputOf = (r) => {
    const c = report.corpora[r.input];
    return `${r.input}: ${count(c.records)} records, ${(c.bytes / 1e6).toFixed(1)} MB`;
  };
  const rows = [
    ['settings', (r) => `\`${compressSettings(r.command)}\``],
    ['input', inputOf],
    ['records over their target', overBudget],
    ['records by status', statuses],
    ['by reason', reasons],
    ['tokens kept, all records counted', allKept],
    ['compressed records: mean tokens before', (r) => (of(r).meanTokensBefore ? count(Math.round(of(r).meanTokensBefore)) : '-')],
    ['compressed records: tokens kept', (r) => percent(of(r).kept)],
    ['per compressed record: min / median / max kept', (r) => [of(r).minRatio, of(r).medianRatio, of(r).maxRatio].map((v) => percent(v)).join(' / ')],
    ['throughput', (r) => `${fmt(r.mbPerS, 1)} MB/s, ${fmt(r.ratio, 2)}x ${r.baseline}${r.target ? ` (target >= ${r.target.toFixed(2)}x)` : ''}`],
    [
      'peak RSS',
      (r) => `${fmt(r.peakRssMb)} MB on ${(report.corpora[r.input].bytes / 1e9).toFixed(2)} GB of input${r.maxRssMb ? ` (limit ${r.maxRssMb} MB)` : ''}`,
    ],
  ];
  return [
    '## hermes-compress: the compression achieved',
    '',
    "From the runs in the table above. Counts by status and reason and token totals are hermes-compress's own `--metrics-file`; the per-record figures come from reading the records it wrote (`metadata.compression`, bench/compress-check.mjs). Kept = tokens after / tokens before (o200k_base).",
    '',
    'Reasons (`hermes-compress --help`): under_target: at or under its target already; fits: compressed to its target; over_limit: compressed, still over its target (the rest is protected); no_window: nothing between the protected turns to compress.',
    '',
    table(
      ['', ...runs.map((r) => `\`${r.name}\``)],
      rows.map(([label, value]) => [label, ...runs.map(value)]),
    ),
    '',
    ...runs.flatMap((r) => compressNotes(r, report.corpora[r.input])),
    '',
  ];
}

/** The issue's two statements: peak RSS on at least 1 GB of input, and the requirements' headline. */
function compressNotes(r, corpus) {
  const c = r.figures?.compressed;
  if (r.name === 'hermes-compress-headline' && c?.records > 0) {
    return [
      `- Headline (the requirements: long trajectories of about 38k tokens brought to about 15% of their tokens): ${count(c.records)} of ${count(r.figures.records)} records compressed, ${count(Math.round(c.meanTokensBefore))} tokens each on average before, ${percent(c.kept)} of their tokens kept overall, per record ${percent(c.minRatio)} to ${percent(c.maxRatio)}.`,
    ];
  }
  if (r.name !== 'hermes-compress' || r.peakRssMb === null || r.peakRssMb === undefined) return [];
  const size = `${(corpus.bytes / 1e9).toFixed(2)} GB`;
  return corpus.bytes >= COMPRESS_RSS_INPUT_BYTES
    ? [`- Peak RSS ${fmt(r.peakRssMb)} MB measured on ${size} of input (the issue: under 300 MB on 1 GB).`]
    : [
        `- Peak RSS ${fmt(r.peakRssMb)} MB measured on only ${size} of input: not the issue's measurement (under 300 MB on 1 GB); \`make bench\` (the default --records ${DEFAULT_RECORDS}, over 1 GB) makes it.`,
      ];
}

function readResult(name) {
  const path = `${RESULTS_DIR}/${name}.json`;
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null;
}

function generateSection() {
  const latency = readResult('generate');
  const run = readResult('generate-run');
  const tools = readResult('generate-tools');
  const batch = readResult('generate-batch');
  if (!latency && !run && !tools && !batch)
    return [
      '## hermes-generate',
      '',
      'No results: run `node bench/generate.mjs`, `node bench/generate-run.mjs` and `node bench/generate-tools.mjs` (all part of `make bench`).',
      '',
    ];
  const rows = [];
  if (latency) {
    const { cpu, latency: l, load: big } = latency;
    rows.push([
      'generate.json',
      `CPU per model turn (${cpu.prompts} prompts, ${cpu.turns} turns, zero latency)`,
      `${cpu.cpuMsPerTurn.toFixed(2)} ms (${cpu.turnsPerCpuS.toFixed(0)} turns per CPU-second; start-up ${cpu.startupCpuS.toFixed(2)} CPU-s)`,
      '-',
    ]);
    rows.push([
      'generate.json',
      `concurrency efficiency: ${l.prompts} prompts, --concurrency ${l.concurrency}, replies ${l.latencyMs} ms late`,
      `${l.callsPerS.toFixed(0)} of an ideal ${l.idealCallsPerS} calls/s = ${pct(l.share)} (${pct(l.shareWithStartup)} counting start-up)`,
      `>= ${pct(l.target)}`,
    ]);
    rows.push([
      'generate.json',
      `concurrency efficiency under load: ${big.prompts} prompts, --concurrency ${big.concurrency}, replies ${big.latencyMs} ms late`,
      `${big.callsPerS.toFixed(0)} of an ideal ${big.idealCallsPerS} calls/s = ${pct(big.share)}`,
      `>= ${pct(big.target)}`,
    ]);
  }
  if (run) {
    rows.push([
      'generate-run.json',
      `overhead of --run-name (run directory, checkpoint) over plain streaming, ${run.run.prompts} prompts, fastest of ${run.repeat ?? 1} runs of each`,
      `${pct(run.overhead.cpuPerTurn)} CPU per turn, ${pct(run.overhead.wall)} wall (${run.stream.cpuMsPerTurn.toFixed(2)} -> ${run.run.cpuMsPerTurn.toFixed(2)} CPU ms per turn; peak RSS ${run.stream.peakRssMb} -> ${run.run.peakRssMb} MB)${run.overhead.fileSystem ? `; the file system alone (${run.overhead.fileSystem.files} files created, written, fsynced) ${pct(run.overhead.fileSystem.shareOfStream)}` : ''}`,
      `<= ${pct(run.overhead.target)} CPU`,
    ]);
    if (run.journal) {
      rows.push([
        'generate-run.json',
        'the call journal: run mode with it against --no-journal, zero latency; and at 1 s latency',
        `${pct(run.journal.cpuPerTurn)} CPU per turn (${run.journal.withoutCpuMsPerTurn.toFixed(2)} -> ${run.journal.withCpuMsPerTurn.toFixed(2)} ms)${run.gateway?.withoutJournal ? `; at 1 s: ${run.gateway.withoutJournal.wallS.toFixed(1)} -> ${run.gateway.wallS.toFixed(1)} s wall, ${run.gateway.withoutJournal.cpuMsPerCall.toFixed(2)} -> ${run.gateway.cpuMsPerCall.toFixed(2)} ms CPU per call` : ''}`,
        '-',
      ]);
    }
    rows.push([
      'generate-run.json',
      '--resume of the finished run',
      `${run.resume.wallS.toFixed(2)} s = ${pct(run.resume.shareOfRun)} of the run`,
      `< ${pct(run.resume.target)}`,
    ]);
    rows.push([
      'generate-run.json',
      `gateway: ${run.gateway.prompts} prompts, replies ${run.gateway.latencyMs} ms late`,
      `${run.gateway.callsPerS.toFixed(1)} of an ideal ${run.gateway.idealCallsPerS} calls/s = ${pct(run.gateway.share)}`,
      `>= ${pct(run.gateway.target)}`,
    ]);
  }
  if (tools) {
    const sandbox = Object.entries(tools.sandboxMsPerCall)
      .map(([mode, ms]) => `${mode} ${ms.toFixed(1)} ms`)
      .join(', ');
    rows.push(['generate-tools.json', 'cost of one tool call by sandbox', sandbox, '-']);
    for (const [name, r] of Object.entries(tools.runs)) {
      rows.push([
        'generate-tools.json',
        `${r.prompts} prompts with real tools, --concurrency ${r.concurrency}, --sandbox ${r.sandbox}${r.maxOpenFiles ? `, ${r.maxOpenFiles} open files` : ''} (${name})`,
        `${r.callsPerS.toFixed(1)} calls/s, ${r.cpuMsPerTurn.toFixed(2)} CPU ms per turn, ${r.failedPrompts} failed prompts`,
        r.problems.length > 0 ? `FAIL: ${r.problems.join('; ')}` : '-',
      ]);
    }
  }
  if (batch) {
    const b = batch.batch;
    rows.push([
      'generate-batch.json',
      `--batch-api: ${b.prompts} prompts x ${b.turnsPerPrompt} turns, batches of ${b.delayMs} ms, polled from ${b.pollMs} ms`,
      `${b.wallS.toFixed(1)} s wall against the rounds' ideal ${b.idealS.toFixed(1)} s = ${b.wallOverIdeal === null ? '-' : `${b.wallOverIdeal.toFixed(2)}x`} (${b.batches} batches), ${b.cpuMsPerTurn.toFixed(2)} CPU ms per turn, peak RSS ${b.peakRssMb} MB, ${b.customIdsSubmittedMoreThanOnce} custom_ids twice`,
      `<= ${b.target}x`,
    ]);
  }
  const machines = [
    ['generate.json', latency],
    ['generate-run.json', run],
    ['generate-tools.json', tools],
    ['generate-batch.json', batch],
  ]
    .filter(([, r]) => r)
    .map(([name, r]) => `- ${name}: ${machineLine(r)}`);
  return [
    '## hermes-generate against the scripted endpoint',
    '',
    'From the latest results of bench/generate.mjs, bench/generate-run.mjs and bench/generate-tools.mjs (each dated: they may come from an earlier run than the table above).',
    '',
    ...machines,
    '',
    table(['source', 'measure', 'result', 'target'], rows),
    '',
  ];
}

function toAtroposSection() {
  const result = readResult('to-atropos');
  if (!result) return ['## hermes-to-atropos exports', '', 'No results: run `node bench/to-atropos.mjs` (part of `make bench`).', ''];
  const rows = result.exports.map((r) => [
    r.name,
    r.what,
    `${fmt(r.chatsPerCpuS)} (${fmt(r.chatsPerCpuSWithoutStartup)} without ${r.startupCpuS.toFixed(2)} CPU-s of start-up)`,
    r.atroposPythonChatsPerCpuS === null ? '-' : String(r.atroposPythonChatsPerCpuS),
    `>= ${r.target}`,
    r.chatsPerCpuS >= r.target ? 'ok' : 'FAIL',
  ]);
  return [
    '## hermes-to-atropos exports',
    '',
    `From bench/to-atropos.mjs: ${result.corpus.records} Qwen3 chats of the synthetic corpus, the fastest run's CPU (user + system). Machine: ${machineLine(result)}.`,
    '',
    table(['export', 'command', 'chats per CPU-second', "Atropos's Python", 'target', 'result'], rows),
    '',
  ];
}

/** bench/generate-quota.mjs: run mode behind a gateway's quota, upstream's way beside it, and the fault storm. */
export function quotaSection() {
  const q = readResult('generate-quota');
  if (!q) return ['## hermes-generate behind a quota', '', 'No results: run `node bench/generate-quota.mjs` (part of `make bench`).', ''];
  const { quota, floor, upstream, storm } = q;
  const rows = [
    ...quota.runs.map((r) => ['run mode (the limiter)', r.limitHeaders, r.retryAfter, fmt(r.share, 3), pct1(r.refusedShare), String(r.failed)]),
    ...(quota.reachable
      ? [
          [
            `the reachable ideal: a schedule of ${fmt(quota.reachable.scheduleS, 1)} s + process start ${fmt(quota.reachable.startupS, 1)} s`,
            '-',
            '-',
            fmt(quota.reachable.share, 3),
            '-',
            '-',
          ],
        ]
      : []),
    ...(floor ? [[`no quota at all, -c ${floor.concurrency} (R x latency in flight)`, '-', '-', fmt(floor.share, 3), '-', '-']] : []),
    ...upstream.runs.map((r) => [
      'upstream-style: 2 retries, no limiter',
      r.limitHeaders,
      r.retryAfter,
      fmt(r.share, 3),
      pct1(r.refusedShare),
      String(r.failed),
    ]),
  ];
  const classes = Object.entries(storm.first.byClass)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return [
    '## hermes-generate behind a quota',
    '',
    `From bench/generate-quota.mjs: ${quota.prompts} prompts x ${quota.callsPerPrompt} calls, replies ${quota.latencyMs} ms late, 40 prompts at once, against the testkit's request quota of ${quota.runs[0]?.rps} a second (the calls take ${quota.seconds} s at that rate). Share of ideal: (calls / quota) / wall time, process start and exit included. Targets: >= ${quota.targets.withHeaders} with budget headers, >= ${quota.targets.withoutHeaders} without; 429s <= ${pct(quota.targets.refusals)} of requests; no prompt failed.`,
    '',
    `- ${machineLine(q)}`,
    ...(floor?.note ? [`- the row "no quota at all": ${floor.note}`] : []),
    '',
    table(['client', 'budget headers', 'Retry-After', 'share of ideal', '429s of requests', 'prompts failed'], rows),
    '',
    ...(quota.reachable
      ? [
          `Calls / R is not reachable as such: process start and exit cost what they cost (an empty run, measured in the same part), and each prompt's ${quota.callsPerPrompt} calls go one after another, so at the end fewer prompts are left than the quota can serve (a schedule of these calls that wastes nothing at 40 prompts at once, computed in bench/generate-quota.mjs, takes ${fmt(quota.reachable.scheduleS, 1)} s for ${quota.seconds} s of quota). Against that reachable ideal the limiter's rows reach ${fmt(Math.min(...quota.runs.map((r) => r.shareOfReachable)), 3)} to ${fmt(Math.max(...quota.runs.map((r) => r.shareOfReachable)), 3)}; the rest is the machine's load and the client's own work per call.`,
          '',
        ]
      : []),
    ...(floor
      ? [
          `The share of ideal includes what the workload costs with no quota at all (the row "no quota at all": process start, the first round, the last prompts' ${quota.callsPerPrompt} calls in a row): the limited runs reach ${fmt(Math.min(...quota.runs.map((r) => r.share)) / floor.share, 2)} to ${fmt(Math.max(...quota.runs.map((r) => r.share)) / floor.share, 2)} of it, so a target near that row measures the workload more than the limiter. The upstream-style rows (stream mode: the client's 2 fixed retries after Retry-After or a backoff, no limiter) lose ${upstream.runs.map((r) => r.failed).join(' and ')} of the ${quota.prompts} prompts; their share counts only the calls answered.`,
          '',
        ]
      : []),
    `Fault storm: ${storm.prompts} prompts x 2 calls, ${storm.flags ?? `--request-timeout ${storm.requestTimeoutS}`}, ${storm.faults.map((f) => `${f.kind} ${pct(f.share)}`).join(', ')} of calls: ${pct1(storm.first.doneShare)} done in one invocation (${fmt(storm.first.wallS, 1)} s, exit ${storm.first.code}; failed: ${classes || 'none'}; target >= ${pct(storm.target)}); \`--resume\` (${fmt(storm.resume.wallS, 1)} s, exit ${storm.resume.code}) leaves ${storm.resume.failedLeft} failed.${storm.note ? ` (${storm.note})` : ''}`,
    '',
  ];
}

const pct1 = (share) => `${(share * 100).toFixed(1)}%`;

/** The whole of bench/RESULTS.md for a bench/run.mjs report. */
export function resultsMarkdown(report) {
  return [
    '# Benchmark results',
    '',
    'Written by `make bench` (bench/run.mjs, then bench/results-md.mjs); the raw figures are in bench/results/*.json.',
    'The machine may be shared with other work: the load averages below say how busy it was, and a busy machine only makes these figures lower.',
    '',
    ...streamSection(report),
    ...compressSection(report),
    ...toAtroposSection(),
    ...generateSection(),
    ...quotaSection(),
  ].join('\n');
}

export function writeResultsMarkdown(report, path = RESULTS_MD) {
  writeFileSync(path, resultsMarkdown(report));
  return relative(process.cwd(), path);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const latest = readResult('latest');
  if (!latest) {
    process.stderr.write('bench/results/latest.json is missing: run `node bench/run.mjs` first\n');
    process.exit(2);
  }
  const text = resultsMarkdown(latest);
  writeFileSync(RESULTS_MD, text);
  process.stdout.write(`${text}\nwrote ${relative(process.cwd(), RESULTS_MD)}\n`);
}
