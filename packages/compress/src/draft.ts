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
    return new Draft(turns.map((t) => ({ ...t })), turns.map((t) => counter.count(t.value)), counter);
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
