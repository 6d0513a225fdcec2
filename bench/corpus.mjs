// The benchmark corpus: N synthetic Hermes trajectories (bench/synthetic/) in one JSONL file.
// Deterministic (same records, seed and generator -> byte-identical file) and cached: a file is
// reused when the .meta.json beside it names the same parameters, generator and size.
//   node bench/corpus.mjs [--records N] [--seed S] [--out FILE]
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeTrajectory } from './synthetic/trajectory.mjs';

export const DEFAULT_RECORDS = 100_000;
export const DEFAULT_SEED = 1;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WRITE_BYTES = 4 << 20;

// Any change to the generator or the tool registry changes the records, so it invalidates the cache.
const GENERATOR_FILES = [
  'bench/corpus.mjs',
  'bench/synthetic/random.mjs',
  'bench/synthetic/text.mjs',
  'bench/synthetic/trajectory.mjs',
  'packages/core/registry/tools.json',
];

function generatorFingerprint() {
  const hash = createHash('sha256');
  for (const file of GENERATOR_FILES) hash.update(readFileSync(`${ROOT}${file}`));
  return hash.digest('hex').slice(0, 16);
}

export function defaultCorpusPath(records, seed) {
  return `${ROOT}bench/data/trajectories-n${records}-s${seed}.jsonl`;
}

function readMeta(metaPath) {
  try {
    return JSON.parse(readFileSync(metaPath, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The corpus file for these parameters, generated unless a matching one exists.
 * @returns {{ path: string, records: number, seed: number, bytes: number, sha256: string, summary: object, reused: boolean }}
 */
export function ensureCorpus({
  records = DEFAULT_RECORDS,
  seed = DEFAULT_SEED,
  out = defaultCorpusPath(records, seed),
  log = (m) => process.stderr.write(`${m}\n`),
} = {}) {
  if (!Number.isInteger(records) || records < 1) throw new Error(`--records takes a whole number of at least 1 (got ${records})`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`--seed takes a whole number from 0 to 4294967295 (got ${seed})`);
  const metaPath = `${out}.meta.json`;
  const generator = generatorFingerprint();
  const meta = readMeta(metaPath);
  if (meta && meta.records === records && meta.seed === seed && meta.generator === generator && existsSync(out) && statSync(out).size === meta.bytes) {
    return { path: out, ...meta, reused: true };
  }
  log(`corpus: generating ${records} records (seed ${seed}) into ${relative(process.cwd(), out)}; later runs reuse it`);
  mkdirSync(dirname(out), { recursive: true });
  const started = performance.now();
  const temp = `${out}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w');
  const hash = createHash('sha256');
  const summary = { zeroReasoning: 0, hallucinatedTool: 0, maxIterations: 0, partial: 0, recordsWithToolFailures: 0, minBytes: Infinity, maxBytes: 0 };
  let bytes = 0;
  let pending = [];
  let pendingBytes = 0;
  const flush = () => {
    const data = Buffer.from(pending.join(''));
    writeSync(fd, data);
    hash.update(data);
    pending = [];
    pendingBytes = 0;
  };
  try {
    for (let i = 0; i < records; i++) {
      const { line, bytes: lineBytes, traits } = makeTrajectory(seed, i);
      pending.push(line, '\n');
      pendingBytes += lineBytes + 1;
      bytes += lineBytes + 1;
      if (pendingBytes >= WRITE_BYTES) flush();
      if (traits.zeroReasoning) summary.zeroReasoning++;
      if (traits.hallucinatedTool) summary.hallucinatedTool++;
      if (traits.ending === 'maxIterations') summary.maxIterations++;
      if (traits.ending === 'partial') summary.partial++;
      if (traits.toolFailures > 0) summary.recordsWithToolFailures++;
      summary.minBytes = Math.min(summary.minBytes, lineBytes);
      summary.maxBytes = Math.max(summary.maxBytes, lineBytes);
      if ((i + 1) % 20_000 === 0) log(`corpus: ${i + 1}/${records}`);
    }
    flush();
  } finally {
    closeSync(fd);
  }
  summary.avgBytes = Math.round(bytes / Math.max(1, records));
  const result = { records, seed, generator, bytes, sha256: hash.digest('hex'), summary };
  renameSync(temp, out);
  writeFileSync(metaPath, `${JSON.stringify(result, null, 2)}\n`);
  log(`corpus: ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { path: out, ...result, reused: false };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { records: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } } });
  const corpus = ensureCorpus({
    records: values.records ? Number(values.records) : DEFAULT_RECORDS,
    seed: values.seed ? Number(values.seed) : DEFAULT_SEED,
    ...(values.out ? { out: values.out } : {}),
  });
  process.stdout.write(
    `${JSON.stringify({ path: corpus.path, records: corpus.records, bytes: corpus.bytes, reused: corpus.reused, summary: corpus.summary })}\n`,
  );
}
