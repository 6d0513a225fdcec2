// Which sequences of a group become SFT examples and DPO pairs: the selection rules of Atropos's
// atropos-sft-gen and atropos-dpo-gen (atroposlib/cli/sft.py, dpo.py::grab_group_data), applied to
// the group's scores, plus this project's --min-score. Ties keep input order (Python's sort is stable).
import type { Rng } from '@hermes-datagen/core';

export interface SelectOptions {
  /** SFT: --save-top-n-per-group. DPO: --save-n-pairs-per-group (also the size of the negative pool). */
  readonly topN: number;
  readonly allowNegative: boolean;
  /** --minimum-score-diff-max-min (SFT: against the group's minimum; DPO: between positive and negative). */
  readonly minScoreDiff: number;
  /** A sequence scoring below this is never an SFT example or a DPO positive. */
  readonly minScore: number | undefined;
}

/** Indices of the SFT examples, best first. */
export function selectSft(scores: readonly number[], options: SelectOptions): number[] {
  const lowest = Math.min(...scores);
  return byScore(scores, 'desc')
    .filter((i) => options.allowNegative || (scores[i] as number) > 0)
    .filter((i) => options.minScoreDiff <= 0 || (scores[i] as number) - lowest > options.minScoreDiff)
    .filter((i) => options.minScore === undefined || (scores[i] as number) >= options.minScore)
    .slice(0, options.topN);
}

export interface Pair {
  readonly pos: number;
  readonly neg: number;
}

/**
 * DPO pairs: positives best first; the negative pool is the topN lowest-scored sequences; each positive
 * draws (with the seeded rng, where upstream uses random.choice) one pool member scoring below its own
 * score minus minScoreDiff, which then leaves the pool.
 */
export function selectDpo(scores: readonly number[], options: SelectOptions, rng: Rng): Pair[] {
  const positives = byScore(scores, 'desc')
    .filter((i) => options.allowNegative || (scores[i] as number) > 0)
    .filter((i) => options.minScore === undefined || (scores[i] as number) >= options.minScore);
  const pool = byScore(scores, 'asc').slice(0, options.topN);
  const pairs: Pair[] = [];
  for (const pos of positives.slice(0, options.topN)) {
    const candidates = pool.filter((i) => (scores[i] as number) < (scores[pos] as number) - options.minScoreDiff);
    if (candidates.length === 0) continue;
    const neg = candidates[Math.floor(rng() * candidates.length)] as number;
    pool.splice(pool.indexOf(neg), 1);
    pairs.push({ pos, neg });
  }
  return pairs;
}

function byScore(scores: readonly number[], order: 'asc' | 'desc'): number[] {
  const sign = order === 'desc' ? -1 : 1;
  return scores.map((_, i) => i).sort((a, b) => sign * ((scores[a] as number) - (scores[b] as number)));
}
