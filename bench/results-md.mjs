// bench/RESULTS.md: the stream benchmark of bench/run.mjs (bench/results/latest.json) as a
// markdown table, with the hermes-generate figures of bench/generate*.mjs where their results
// exist, and the machine each ran on. bench/run.mjs writes it after its run; `make bench` runs
// this file again at the end (`node bench/results-md.mjs`) so that the generate figures of the
// same `make bench` are in it. Each section carries its own date and load average: the machine is
// often shared, and load only ever slows a run down.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS_MD = `${ROOT}bench/RESULTS.md`;
const RESULTS_DIR = `${ROOT}bench/results`;

const fmt = (value, digits = 0) => (value === null || value === undefined ? '-' : value.toFixed(digits));
const pct = (share) => `${(share * 100).toFixed(0)}%`;
const load = (values) => (values ? values.map((v) => v.toFixed(1)).join(' ') : '-');
const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');
const table = (header, rows) => [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.map(cell).join(' | ')} |`).join('\n');

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

function readResult(name) {
  const path = `${RESULTS_DIR}/${name}.json`;
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null;
}

function generateSection() {
  const latency = readResult('generate');
  const run = readResult('generate-run');
  const tools = readResult('generate-tools');
  if (!latency && !run && !tools)
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
      `overhead of --run-name (run directory, checkpoint) over plain streaming, ${run.run.prompts} prompts`,
      `${pct(run.overhead.cpuPerTurn)} CPU per turn, ${pct(run.overhead.wall)} wall (${run.stream.cpuMsPerTurn.toFixed(2)} -> ${run.run.cpuMsPerTurn.toFixed(2)} CPU ms per turn; peak RSS ${run.stream.peakRssMb} -> ${run.run.peakRssMb} MB)`,
      `<= ${pct(run.overhead.target)} CPU`,
    ]);
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
  const machines = [
    ['generate.json', latency],
    ['generate-run.json', run],
    ['generate-tools.json', tools],
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

/** The whole of bench/RESULTS.md for a bench/run.mjs report. */
export function resultsMarkdown(report) {
  return [
    '# Benchmark results',
    '',
    'Written by `make bench` (bench/run.mjs, then bench/results-md.mjs); the raw figures are in bench/results/*.json.',
    'The machine may be shared with other work: the load averages below say how busy it was, and a busy machine only makes these figures lower.',
    '',
    ...streamSection(report),
    ...generateSection(),
  ].join('\n');
}

export function writeResultsMarkdown(report) {
  writeFileSync(RESULTS_MD, resultsMarkdown(report));
  return relative(process.cwd(), RESULTS_MD);
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
