// The run's budget: what earlier invocations spent (statistics.json), every call of this one, the
// reason intake stops, and the progress line's dollars and projection.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunBudget, spentBefore } from '@hermes-datagen/generate/internal/run/runBudget.js';
import { tempDir } from '../../util/cli.js';

describe('RunBudget', () => {
  it('stops at --max-cost counting what was spent before, and says how to go on', () => {
    const budget = new RunBudget({ maxCostUsd: 1 }, { usd: 0.75, tokens: 0 });
    expect(budget.reached()).toBeUndefined();
    budget.spent(0.2, 100);
    expect(budget.reached()).toBeUndefined();
    budget.spent(0.05, 100);
    expect(budget.reached()).toBe('the run has spent $1 of --max-cost 1: no new prompt starts; --resume with a higher --max-cost continues');
  });

  it('stops at --max-tokens whatever the calls cost', () => {
    const budget = new RunBudget({ maxTokens: 1000 }, { usd: 0, tokens: 900 });
    budget.spent(undefined, 99);
    expect(budget.reached()).toBeUndefined();
    budget.spent(undefined, 1);
    expect(budget.reached()).toMatch(/1000 tokens of --max-tokens 1000/);
  });

  it('shows dollars spent and projected only when priced, marked + when some call had no price', () => {
    const budget = new RunBudget({}, { usd: 1, tokens: 0 });
    expect(budget.progress(2, 10, false)).toBe('');
    expect(budget.progress(2, 10, true)).toBe(', $1.0000 spent, ~$5.00 projected');
    budget.spent(undefined, 5);
    expect(budget.progress(10, 10, true)).toBe(', $1.0000+ spent');
  });

  it('spentBefore reads statistics.json, and a run without one has spent nothing', async () => {
    const dir = tempDir('hermes-budget-');
    expect(await spentBefore(dir)).toEqual({ usd: 0, tokens: 0 });
    writeFileSync(
      join(dir, 'statistics.json'),
      JSON.stringify({ usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }, cost_usd: { total: 2.5 } }),
    );
    expect(await spentBefore(dir)).toEqual({ usd: 2.5, tokens: 15 });
    writeFileSync(join(dir, 'statistics.json'), '{torn');
    expect(await spentBefore(dir)).toEqual({ usd: 0, tokens: 0 });
  });
});
