// Output checks of the hermes-compress benchmarks: one record per input record, in order, each saying
// what was done to it (metadata.compression), none grown, compressed ones at or under their target
// unless their reason says why. Both print the achieved compression ratios to stderr.
import { createInterface } from 'node:readline';

/** Reads the output; returns a problem, or the tallies. */
async function tally(stdout, corpus) {
  const t = { statuses: {}, records: 0, before: 0, after: 0, ratios: [] };
  for await (const line of createInterface({ input: stdout, crlfDelay: Infinity })) {
    if (line === '') continue;
    const record = JSON.parse(line);
    const c = record.metadata?.compression;
    if (!c) return `record ${t.records + 1} has no metadata.compression`;
    if (record.prompt_index !== t.records) return `record ${t.records + 1} is prompt_index ${record.prompt_index}: the order changed`;
    t.records += 1;
    t.statuses[c.status] = (t.statuses[c.status] ?? 0) + 1;
    if (c.status !== 'compressed') continue;
    if (!(c.tokens_after < c.tokens_before)) return `record ${t.records} grew or kept its size: ${c.tokens_before} -> ${c.tokens_after}`;
    if (c.tokens_after > c.target && !String(c.reason).startsWith('over_limit')) return `record ${t.records} is over its target without saying so`;
    t.before += c.tokens_before;
    t.after += c.tokens_after;
    t.ratios.push(c.tokens_after / c.tokens_before);
  }
  if (t.records !== corpus.records) return `${t.records} records out for ${corpus.records} in`;
  t.ratios.sort((a, b) => a - b);
  const at = (q) => (t.ratios.length ? t.ratios[Math.floor(q * (t.ratios.length - 1))].toFixed(3) : '-');
  t.overall = t.after / Math.max(t.before, 1);
  process.stderr.write(
    `hermes-compress: ${JSON.stringify(t.statuses)}; compressed records: ${t.before} -> ${t.after} tokens (${(t.overall * 100).toFixed(1)}%; per record min ${at(0)}, median ${at(0.5)}, max ${at(1)}; mean before ${Math.round(t.before / Math.max(t.ratios.length, 1))})\n`,
  );
  return t;
}

export async function compressOutputCheck(stdout, corpus) {
  const t = await tally(stdout, corpus);
  return typeof t === 'string' ? t : null;
}

/** Every record compressed, and all of them together to at most this share of their tokens. */
export function compressRatioCheck({ atMost }) {
  return async (stdout, corpus) => {
    const t = await tally(stdout, corpus);
    if (typeof t === 'string') return t;
    if (t.statuses.compressed !== corpus.records) return `only ${t.statuses.compressed ?? 0} of ${corpus.records} records were compressed`;
    return t.overall <= atMost ? null : `compressed to ${(t.overall * 100).toFixed(1)}% of the tokens, more than ${atMost * 100}%`;
  };
}
