// The conversation being compressed: turns (copies, the input is never changed) with their token
// counts and the running total, so each step knows at once whether the record fits.
import type { TokenCounter, Turn } from '@hermes-datagen/core';

export class Draft {
  public total: number;

  public constructor(
    public turns: Turn[],
    public tokens: number[],
    public readonly counter: TokenCounter,
  ) {
    this.total = tokens.reduce((a, b) => a + b, 0);
  }

  public static of(turns: readonly Turn[], counter: TokenCounter): Draft {
    return new Draft(
      turns.map((t) => ({ ...t })),
      turns.map((t) => countTurn(t, counter)),
      counter,
    );
  }

  /** Replaces a turn's value when that saves tokens; says whether it did. */
  public shrink(index: number, value: string): boolean {
    const tokens = this.counter.count(value);
    const before = this.tokens[index] as number;
    if (tokens >= before) return false;
    this.turns[index] = { ...(this.turns[index] as Turn), value };
    this.tokens[index] = tokens;
    this.total += tokens - before;
    return true;
  }
}

// System turns repeat from record to record (one per set of offered tools: 62 distinct in 2,000 bench
// records, where they are over half of the text), so their counts are remembered, per counter.
const SYSTEM_COUNTS_LIMIT = 256;
const systemCounts = new WeakMap<TokenCounter, Map<string, number>>();

function countTurn(turn: Turn, counter: TokenCounter): number {
  if (turn.from !== 'system') return counter.count(turn.value);
  let counts = systemCounts.get(counter);
  if (!counts) {
    counts = new Map();
    systemCounts.set(counter, counts);
  }
  let n = counts.get(turn.value);
  if (n === undefined) {
    n = counter.count(turn.value);
    if (counts.size >= SYSTEM_COUNTS_LIMIT) counts.clear();
    counts.set(turn.value, n);
  }
  return n;
}
