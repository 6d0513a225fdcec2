// Long trajectories for the compression headline (docs/compression.md#budget-and-window: ~38,000-token debugging runs
// brought to ~15%): each record is one synthetic record whose middle (every turn between its task and
// its final answer) is followed by the middles of the next records, until it is about 160 KB (~38k
// o200k tokens on this text). Deterministic and cached like the main corpus.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeTrajectory } from './synthetic/trajectory.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_BYTES = 160_000;

export function ensureLongCorpus({ records = 200, seed = 1 } = {}) {
  const path = `${ROOT}bench/data/long-trajectories-n${records}-s${seed}.jsonl`;
  const generator = createHash('sha256')
    .update(readFileSync(new URL(import.meta.url)))
    .update(readFileSync(new URL('./synthetic/trajectory.mjs', import.meta.url)))
    .digest('hex')
    .slice(0, 16);
  const metaPath = `${path}.meta.json`;
  if (existsSync(metaPath) && existsSync(path)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    if (meta.generator === generator && statSync(path).size === meta.bytes) return { path, ...meta };
  }
  mkdirSync(`${ROOT}bench/data`, { recursive: true });
  const lines = [];
  let source = 0;
  for (let i = 0; i < records; i++) {
    const record = JSON.parse(makeTrajectory(seed, source++).line);
    const turns = record.conversations;
    const middle = (conversations) => conversations.slice(2, conversations.at(-1)?.from === 'gpt' ? -1 : undefined);
    const body = [...middle(turns)];
    let bytes = Buffer.byteLength(JSON.stringify(turns));
    while (bytes < TARGET_BYTES) {
      const more = middle(JSON.parse(makeTrajectory(seed, source++).line).conversations).filter((_, k, all) => !(k === 0 && all[0]?.from === 'tool'));
      body.push(...more);
      bytes += Buffer.byteLength(JSON.stringify(more));
    }
    const last = turns.at(-1);
    record.conversations = [...turns.slice(0, 2), ...body, ...(last?.from === 'gpt' ? [last] : [])];
    record.prompt_index = i;
    record.id = `bench-long-s${seed}-${i}`;
    lines.push(JSON.stringify(record));
  }
  const text = `${lines.join('\n')}\n`;
  writeFileSync(path, text);
  const meta = { records, seed, generator, bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') };
  writeFileSync(metaPath, JSON.stringify(meta));
  return { path, ...meta };
}
