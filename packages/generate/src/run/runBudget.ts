// --max-cost and --max-tokens: the whole run's budget, across resumes. What earlier invocations spent
// is read from the run's statistics.json (its records' cost_usd and tokens); this invocation adds
// every answered call as it comes, failed prompts' and replayed ones' too. Intake checks the budget
// before each new prompt starts, so a run overshoots by at most what its prompts in flight spend.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlainObject, roundUsd } from '@hermes-datagen/core';
import { STATISTICS_FILE } from './runOutputs.js';

export interface BudgetLimits {
  readonly maxCostUsd?: number | undefined;
  readonly maxTokens?: number | undefined;
}

export interface Spend {
  readonly usd: number;
  readonly tokens: number;
}

export class RunBudget {
  private usd: number;
  private tokens: number;
  /** Some call of this invocation had no price: the dollars spent are a lower bound. */
  private unpriced = false;

  public constructor(
    private readonly limits: BudgetLimits,
    before: Spend,
  ) {
    this.usd = before.usd;
    this.tokens = before.tokens;
  }

  /** Counts one answered call. */
  public spent(usd: number | undefined, tokens: number): void {
    if (usd === undefined) this.unpriced = true;
    else this.usd += usd;
    this.tokens += tokens;
  }

  /** Why no new prompt may start, or undefined while the budget lasts. */
  public reached(): string | undefined {
    const { maxCostUsd, maxTokens } = this.limits;
    if (maxCostUsd !== undefined && this.usd >= maxCostUsd) {
      return `the run has spent $${roundUsd(this.usd)} of --max-cost ${maxCostUsd}: no new prompt starts; --resume with a higher --max-cost continues`;
    }
    if (maxTokens !== undefined && this.tokens >= maxTokens) {
      return `the run has used ${this.tokens} tokens of --max-tokens ${maxTokens}: no new prompt starts; --resume with a higher --max-tokens continues`;
    }
    return undefined;
  }

  /** The progress line's part: spent so far, and at this rate the whole run (`done` of `total` prompts). */
  public progress(done: number, total: number, priced: boolean): string {
    if (!priced) return '';
    const spent = `$${this.usd.toFixed(this.usd < 10 ? 4 : 2)}${this.unpriced ? '+' : ''} spent`;
    const projected = done > 0 && total > done ? `, ~$${((this.usd / done) * total).toFixed(2)} projected` : '';
    return `, ${spent}${projected}`;
  }
}

/** What the run's earlier invocations spent, from its statistics.json (nothing when it has none yet). */
export async function spentBefore(runDir: string): Promise<Spend> {
  let statistics: unknown;
  try {
    statistics = JSON.parse(await readFile(join(runDir, STATISTICS_FILE), 'utf8'));
  } catch {
    return { usd: 0, tokens: 0 };
  }
  if (!isPlainObject(statistics)) return { usd: 0, tokens: 0 };
  const cost = statistics['cost_usd'];
  const usage = statistics['usage'];
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return {
    usd: isPlainObject(cost) ? number(cost['total']) : 0,
    tokens: isPlainObject(usage) ? number(usage['prompt_tokens']) + number(usage['completion_tokens']) : 0,
  };
}
