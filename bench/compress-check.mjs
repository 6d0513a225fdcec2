// Output checks of the hermes-compress benchmarks: one record per input record, in order, each saying
// what was done to it (metadata.compression), none grown, compressed ones at or under their target
// unless their reason says why. Each returns { problem, figures }: the figures are the per-record
// ratios of the compressed records (compress's --metrics-file has only their sums and mean), which
// bench/run.mjs keeps in its report for bench/RESULTS.md.
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
  return t;
}

/** What bench/RESULTS.md reports of the compressed records: their tokens and the spread of their ratios. */
function figuresOf(t) {
  const ratios = [...t.ratios].sort((a, b) => a - b);
  const at = (q) => (ratios.length > 0 ? ratios[Math.floor(q * (ratios.length - 1))] : null);
  const figures = {
    records: t.records,
    statuses: t.statuses,
    compressed: {
      records: ratios.length,
      tokensBefore: t.before,
      tokensAfter: t.after,
      meanTokensBefore: ratios.length > 0 ? t.before / ratios.length : null,
      kept: t.before > 0 ? t.after / t.before : null,
      minRatio: at(0),
      medianRatio: at(0.5),
      maxRatio: at(1),
    },
  };
  const c = figures.compressed;
  const share = (v) => (v === null ? '-' : v.toFixed(3));
  process.stderr.write(
    `hermes-compress: ${JSON.stringify(t.statuses)}; compressed records: ${c.tokensBefore} -> ${c.tokensAfter} tokens (${share(c.kept)}; per record min ${share(c.minRatio)}, median ${share(c.medianRatio)}, max ${share(c.maxRatio)}; mean before ${Math.round(c.meanTokensBefore ?? 0)})\n`,
  );
  return figures;
}

export async function compressOutputCheck(stdout, corpus) {
  const t = await tally(stdout, corpus);
  return typeof t === 'string' ? { problem: t, figures: null } : { problem: null, figures: figuresOf(t) };
}

/** Every record compressed, and all of them together to at most this share of their tokens. */
export function compressRatioCheck({ atMost }) {
  return async (stdout, corpus) => {
    const t = await tally(stdout, corpus);
    if (typeof t === 'string') return { problem: t, figures: null };
    const figures = figuresOf(t);
    const { kept } = figures.compressed;
    if (t.statuses.compressed !== corpus.records)
      return { problem: `only ${t.statuses.compressed ?? 0} of ${corpus.records} records were compressed`, figures };
    return { problem: kept <= atMost ? null : `compressed to ${(kept * 100).toFixed(1)}% of the tokens, more than ${atMost * 100}%`, figures };
  };
}
