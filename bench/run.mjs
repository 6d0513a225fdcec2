// The benchmark harness (`make bench`): runs the baselines and the subjects of bench/subjects.mjs on
// the synthetic corpus, prints a table, writes bench/results/latest.json and bench/RESULTS.md, and exits 1 when a subject
// misses its throughput target or memory limit, fails, or writes wrong output (--no-fail: report only).
// With --out DIR both go to DIR instead (a trial run that leaves the committed bench/RESULTS.md alone).
//
// Throughput is taken from each command's fastest run: load from other processes only ever slows a
// run down, so the fastest is the closest to the command's own cost and the steadiest figure on a
// shared machine (the median is kept in the JSON too). Runs go round-robin (every command once per
// round) so that a noisy minute hits all of them alike. Peak RSS is the highest of all runs.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseFlags, wholeNumber } from './cli-args.mjs';
import { DEFAULT_RECORDS, DEFAULT_SEED } from './corpus.mjs';
import { describeRssMethod, rssMethod, runOnce } from './measure.mjs';
import { baselines, inputs, subjects } from './subjects.mjs';
import { RESULTS_MD, writeResultsMarkdown } from './results-md.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_DIR = `${ROOT}bench/results`;
const USAGE = `usage: node bench/run.mjs [--records N] [--seed S] [--repeat N] [--only NAME,...] [--no-fail] [--out DIR]
  --records N   corpus size (default ${DEFAULT_RECORDS}; 2000 makes a quick smoke run)
  --seed S      corpus seed (default ${DEFAULT_SEED})
  --repeat N    timed runs per command (default 3; the fastest counts)
  --only NAMES  only these subjects (comma-separated), including those that run only when
                named (jq-identity); their baselines always run
  --no-fail     report misses without exiting 1
  --out DIR     write latest.json and RESULTS.md into DIR, not bench/results/ and bench/RESULTS.md`;

function parseOptions() {
  const values = parseFlags(
    {
      records: { type: 'string', default: String(DEFAULT_RECORDS) },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      repeat: { type: 'string', default: '3' },
      only: { type: 'string' },
      'no-fail': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    USAGE,
  );
  const only = values.only
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = only?.filter((name) => !subjects.some((s) => s.name === name)) ?? [];
  if (unknown.length > 0) exitWithUsage(`no subject named ${unknown.join(', ')}; subjects: ${subjects.map((s) => s.name).join(', ')}`);
  return {
    records: wholeNumber('--records', values.records, 1),
    seed: wholeNumber('--seed', values.seed, 0, 0xffffffff),
    repeat: wholeNumber('--repeat', values.repeat, 1, 100),
    only,
    noFail: values['no-fail'],
    out: values.out === undefined ? null : resolve(values.out),
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function summarise(entry, corpus) {
  const walls = entry.runs.map((r) => r.wallS);
  const best = Math.min(...walls);
  const rss = entry.runs.map((r) => r.rssMb).filter((v) => v !== null);
  return {
    bestWallS: best,
    medianWallS: median(walls),
    mbPerS: corpus.bytes / 1e6 / best,
    recordsPerS: corpus.records / best,
    peakRssMb: rss.length > 0 ? Math.max(...rss) : null,
  };
}

function verdict(subject, result, baselineResult) {
  const problems = [];
  if (result.error) problems.push(result.error);
  if (result.verifyProblem) problems.push(result.verifyProblem);
  if (result.ratio !== null && subject.target !== null && result.ratio < subject.target) {
    problems.push(`throughput ${result.ratio.toFixed(2)}x of ${baselineResult.name}, target ${subject.target.toFixed(2)}x`);
  }
  if (result.peakRssMb !== null && subject.maxRssMb !== null && result.peakRssMb > subject.maxRssMb) {
    problems.push(`peak RSS ${result.peakRssMb.toFixed(0)} MB over the limit of ${subject.maxRssMb} MB`);
  }
  return problems;
}

/** A run failed unless it exited with one of the entry's expected codes (default 0). */
function failureOf(run, entry) {
  if ((entry.exitCodes ?? [0]).includes(run.exitCode)) return null;
  const how = run.signal ? `was killed by ${run.signal}` : run.exitCode === null ? 'did not start' : `exited with ${run.exitCode}`;
  return `${how}: ${run.stderrTail.trim().split('\n').slice(-3).join(' | ') || '(no stderr)'}`;
}

/** A verify function's answer: a problem or null, or { problem, figures }. */
const checkedProblem = (checked) => (checked !== null && typeof checked === 'object' ? checked.problem : checked);

/** The metrics the entry's command wrote to its metricsFile in its last run, or null. */
function metricsOf(entry) {
  if (!entry.metricsFile || !existsSync(entry.metricsFile)) return null;
  const metrics = JSON.parse(readFileSync(entry.metricsFile, 'utf8'));
  rmSync(entry.metricsFile);
  return metrics;
}

async function measureAll(entries, corpora, repeat) {
  for (let round = 1; round <= repeat; round++) {
    for (const entry of entries) {
      if (entry.error) continue;
      process.stderr.write(`bench: round ${round}/${repeat}: ${entry.name}\n`);
      const run = await runOnce({ cmd: entry.cmd, args: entry.args, cwd: ROOT, stdinPath: corpora[entry.input].path });
      const failure = failureOf(run, entry);
      if (failure) entry.error = failure;
      else entry.runs.push(run);
    }
  }
}

const fmt = (value, digits = 0) => (value === null || value === undefined ? '-' : value.toFixed(digits));

function printTable(results) {
  const header = ['name', 'vs', 'best s', 'MB/s', 'records/s', 'ratio', 'target', 'RSS MB', 'max MB', 'result'];
  const rows = results.map((r) => [
    r.name,
    r.baseline ?? '',
    fmt(r.bestWallS, 2),
    fmt(r.mbPerS, 1),
    fmt(r.recordsPerS),
    fmt(r.ratio, 2),
    r.target === null || r.target === undefined ? '-' : `>=${r.target.toFixed(2)}`,
    fmt(r.peakRssMb),
    fmt(r.maxRssMb),
    r.status === 'skipped' ? `skipped: ${r.skipReason}` : r.problems.length > 0 ? `FAIL: ${r.problems.join('; ')}` : r.status,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  process.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

async function main() {
  const options = parseOptions();
  // A subject named as another's baseline runs whenever that one does; one marked onlyWhenNamed
  // (a slow point of comparison) runs otherwise only when --only names it.
  const wanted = (s) => (options.only ? options.only.includes(s.name) : !s.onlyWhenNamed);
  const chosen = subjects.filter((s) => wanted(s) || subjects.some((other) => wanted(other) && other.baseline === s.name));
  const runnable = [];
  const skipped = [];
  for (const subject of chosen) {
    const reason = subject.requires?.() ?? null;
    if (reason) skipped.push({ ...subject, reason });
    else runnable.push(subject);
  }

  const corpora = {};
  for (const name of new Set(chosen.map((s) => s.input))) corpora[name] = inputs[name]({ records: options.records, seed: options.seed });

  // Both baselines on every input, so each run also records the limits themselves.
  const entries = [];
  for (const input of Object.keys(corpora)) {
    for (const baseline of Object.values(baselines)) entries.push({ ...baseline, kind: 'baseline', input, runs: [] });
  }
  for (const subject of runnable) entries.push({ ...subject, kind: 'subject', runs: [] });

  const loadBefore = loadavg();
  // A metrics file left by an earlier run must not stand in for this one's.
  for (const entry of entries.filter((e) => e.metricsFile)) rmSync(entry.metricsFile, { force: true });
  for (const entry of entries.filter((e) => e.verify)) {
    process.stderr.write(`bench: checking the output of ${entry.name} (untimed)\n`);
    const corpus = corpora[entry.input];
    const run = await runOnce({ cmd: entry.cmd, args: entry.args, cwd: ROOT, stdinPath: corpus.path, consumeStdout: (stdout) => entry.verify(stdout, corpus) });
    entry.error = failureOf(run, entry);
    entry.verifyProblem = entry.error ? null : checkedProblem(run.checked);
    entry.figures = run.checked?.figures ?? null;
  }
  await measureAll(entries, corpora, options.repeat);

  const results = [];
  for (const entry of entries) {
    const corpus = corpora[entry.input];
    const base = {
      name: entry.name,
      kind: entry.kind,
      what: entry.what,
      input: entry.input,
      command: [entry.cmd === process.execPath ? 'node' : entry.cmd, ...entry.args].join(' '),
      runs: entry.runs.map((r) => ({ wallS: r.wallS, rssMb: r.rssMb })),
      ...(entry.runs.length > 0 ? summarise(entry, corpus) : { bestWallS: null, medianWallS: null, mbPerS: null, recordsPerS: null, peakRssMb: null }),
    };
    if (entry.kind === 'baseline') {
      results.push({ ...base, problems: entry.error ? [entry.error] : [], status: entry.error ? 'fail' : 'baseline' });
      continue;
    }
    // The baseline is one of `baselines`, or a subject listed before this one (e.g. jq doing the same selection).
    const baselineName = baselines[entry.baseline]?.name ?? entry.baseline;
    const baselineResult = results.find((r) => r.input === entry.input && r.name === baselineName);
    const ratio = base.mbPerS !== null && (baselineResult?.mbPerS ?? null) !== null ? base.mbPerS / baselineResult.mbPerS : null;
    const result = {
      ...base,
      baseline: entry.baseline,
      target: entry.target,
      maxRssMb: entry.maxRssMb,
      ratio,
      error: entry.error,
      verifyProblem: entry.verifyProblem,
      ...(entry.figures ? { figures: entry.figures } : {}),
      ...(entry.metricsFile ? { metrics: metricsOf(entry) } : {}),
    };
    const problems = verdict(entry, result, baselineResult);
    if (ratio === null && entry.target !== null && !entry.error) problems.push(`no ratio: ${baselineName} failed or did not run`);
    delete result.error;
    delete result.verifyProblem;
    results.push({ ...result, problems, status: problems.length > 0 ? 'fail' : entry.target === null && entry.maxRssMb === null ? 'reported' : 'ok' });
  }
  for (const s of skipped) {
    process.stderr.write(`bench: skipped ${s.name}: ${s.reason}\n`);
    results.push({
      name: s.name,
      kind: 'subject',
      what: s.what,
      input: s.input,
      baseline: s.baseline,
      target: s.target,
      maxRssMb: s.maxRssMb,
      status: 'skipped',
      skipReason: s.reason,
      problems: [],
    });
  }

  const corpusLines = Object.entries(corpora).map(
    ([name, c]) => `${name}: ${c.records} records, ${(c.bytes / 1e6).toFixed(1)} MB (${relative(process.cwd(), c.path)})`,
  );
  process.stdout.write(
    `\n${corpusLines.join('\n')}\nfastest of ${options.repeat} run(s); ${describeRssMethod()}; MB = 10^6 bytes; load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')}\n\n`,
  );
  printTable(results);

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, memoryGb: Math.round(totalmem() / 1e9), loadBefore, loadAfter: loadavg() },
    method: { repeat: options.repeat, throughputFrom: 'fastest run', rssFrom: 'highest run', rssMethod, stdout: '/dev/null (verify runs: a pipe, untimed)' },
    corpora: Object.fromEntries(
      Object.entries(corpora).map(([name, c]) => [
        name,
        { path: relative(ROOT, c.path), records: c.records, seed: c.seed, bytes: c.bytes, sha256: c.sha256, summary: c.summary },
      ]),
    ),
    results,
  };
  const resultsDir = options.out ?? RESULTS_DIR;
  const latest = `${resultsDir}/latest.json`;
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(latest, `${JSON.stringify(report, null, 2)}\n`);
  const markdown = writeResultsMarkdown(report, options.out ? `${options.out}/RESULTS.md` : RESULTS_MD);
  process.stdout.write(`\nwrote ${relative(process.cwd(), latest)} and ${markdown}\n`);

  const failed = results.filter((r) => r.status === 'fail');
  if (failed.length > 0 && !options.noFail) {
    process.stderr.write(`bench: ${failed.length} failed: ${failed.map((r) => r.name).join(', ')} (--no-fail only reports)\n`);
    process.exit(1);
  }
}

await main();
