// Cost in dollars end to end: --prices (a file or `prices:` in --config) prices every call of a
// record from the usage the endpoint reported (cached prompt tokens at their own price), a gateway's
// usage.cost wins, a sub-agent's cost is on its own record and in its parent's, statistics.json sums
// the run per model, a model without a price is warned and its records carry no cost; --max-cost and
// --max-tokens stop the intake (exit 5) and --resume with a higher budget goes on.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '@hermes-datagen/core';
import type { Script } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, runProcess, tempDir } from '../util/cli.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';
import { expectRunInvariants, trajectoriesOf } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';

/** USD per million tokens: a prompt token costs 2 µ$, a cached one 0.5 µ$, a completion token 8 µ$. */
const PRICES = { [TEST_MODEL]: { input: 2, output: 8, cached_input: 0.5 } };
const usd = (fresh: number, cached: number, completion: number): number => (fresh * 2 + cached * 0.5 + completion * 8) / 1e6;

const SCRIPT: Script = {
  sequences: [
    {
      match: { contains: 'delegate' },
      replies: [
        {
          reasoning: 'Two parts.',
          tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ prompt: 'part one' }, { prompt: 'part two' }] } }],
          usage: { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 400 },
        },
        { reasoning: 'Both done.', content: 'combined', usage: { prompt_tokens: 2000, completion_tokens: 50 } },
      ],
    },
    { match: { contains: 'part ' }, replies: [{ reasoning: 'Mine.', content: 'part answer', usage: { prompt_tokens: 300, completion_tokens: 30 } }] },
    {
      match: { contains: 'routed' },
      replies: [{ reasoning: 'Priced by the gateway.', content: 'ok', usage: { prompt_tokens: 10, completion_tokens: 10, cost: 0.125 } }],
    },
    { match: { contains: 'plain' }, replies: [{ reasoning: 'Plain.', content: 'ok', usage: { prompt_tokens: 100_000, completion_tokens: 10_000 } }] },
  ],
};

function statisticsOf(
  dir: string,
  run: string,
): { cost_usd?: { total: number; trajectories: number; per_trajectory: number; by_model: Record<string, { total: number }> } } {
  return JSON.parse(readFileSync(join(dir, 'data', run, 'statistics.json'), 'utf8')) as never;
}

describe('hermes-generate cost', () => {
  it('prices every call, sub-agents in their parent, the gateway figure first, and sums the run in statistics.json', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = tempDir('hermes-cost-');
    writeFileSync(join(dir, 'prices.json'), JSON.stringify(PRICES));
    const prompts = [
      { id: 'root', prompt: 'delegate this' },
      { id: 'gw', prompt: 'routed call' },
    ];
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    const result = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', '--run-name', 'c', '--toolsets', 'delegation,todo', '--prices', 'prices.json'], {
      dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const records = trajectoriesOf(expectRunInvariants(join(dir, 'data', 'c')));
    const byId = new Map(records.map((r) => [r.id, r] as const));
    const part = usd(300, 0, 30);
    for (const id of ['root/d0.0', 'root/d0.1']) expect(byId.get(id)?.metadata.cost_usd).toBeCloseTo(part, 12);
    const rootOwn = usd(600, 400, 100) + usd(2000, 0, 50);
    expect(byId.get('root')?.metadata.cost_usd).toBeCloseTo(rootOwn + 2 * part, 12);
    expect(byId.get('gw')?.metadata.cost_usd).toBe(0.125);

    const cost = statisticsOf(dir, 'c').cost_usd;
    // Sub-agents are in their parent's figure: the total counts the two prompts' records.
    expect(cost?.trajectories).toBe(2);
    expect(cost?.total).toBeCloseTo(rootOwn + 2 * part + 0.125, 9);
    expect(cost?.per_trajectory).toBeCloseTo((rootOwn + 2 * part + 0.125) / 2, 9);
    expect(Object.keys(cost?.by_model ?? {})).toEqual([TEST_MODEL]);
  });

  it('takes prices: from --config; without a price for the model, warns and writes no cost', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = tempDir('hermes-cost-config-');
    writeFileSync(join(dir, 'hermes.yaml'), `prices:\n  ${TEST_MODEL}: { input: 2, output: 8 }\n`);
    writeFileSync(join(dir, 'other.yaml'), 'some-other-model: { input: 1, output: 1 }\n');
    const prompts = [{ id: 'p', prompt: 'plain call' }];
    const priced = await runGenerate(endpoint.url, prompts, ['--config', 'hermes.yaml'], { dir });
    expect(priced.code, priced.stderr).toBe(0);
    expect(priced.records[0]?.metadata.cost_usd).toBeCloseTo(usd(100_000, 0, 10_000), 12);

    const unpriced = await runGenerate(endpoint.url, prompts, ['--prices', 'other.yaml'], { dir });
    expect(unpriced.code, unpriced.stderr).toBe(0);
    expect(unpriced.records[0]?.metadata).not.toHaveProperty('cost_usd');
    expect(unpriced.stderr).toContain(`--prices has no price for model ${TEST_MODEL}`);

    const none = await runGenerate(endpoint.url, prompts, [], { dir });
    expect(none.records[0]?.metadata).not.toHaveProperty('cost_usd');
  });

  it('doctor says what its probe cost, or that the model has no price', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = tempDir('hermes-cost-doctor-');
    writeFileSync(join(dir, 'prices.json'), JSON.stringify(PRICES));
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ 'some-other-model': { input: 1, output: 1 } }));
    const doctor = (prices: string) =>
      runProcess(binPath('generate', 'hermes-generate'), ['doctor', '--base-url', endpoint.url, '--model', TEST_MODEL, '--prices', prices], {
        env: { HERMES_API_KEY: TEST_API_KEY },
        cwd: dir,
      });
    const priced = await doctor('prices.json');
    expect(priced.code, priced.stdout).toBe(0);
    expect(priced.stdout).toMatch(/ok {4}the probe cost \$[0-9.]+ \(\d+ tokens of test-model at --prices\)/);
    const unpriced = await doctor('other.json');
    expect(unpriced.code, unpriced.stdout).toBe(0);
    expect(unpriced.stdout).toContain('warn  --prices has no price for model test-model');
  });

  it('a bad prices file is a usage error naming its place', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = tempDir('hermes-cost-bad-');
    writeFileSync(join(dir, 'prices.yaml'), `${TEST_MODEL}: { input: -1, output: 8 }\n`);
    const result = await runGenerate(endpoint.url, [{ prompt: 'plain call' }], ['--prices', 'prices.yaml'], { dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/prices\.yaml.*test-model\.input.*0 or more/);
    expect(endpoint.requests).toHaveLength(0);
  });

  it('--max-cost stops the intake once reached, exit 5; --resume with a higher budget finishes the run', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = tempDir('hermes-cost-budget-');
    writeFileSync(join(dir, 'prices.json'), JSON.stringify(PRICES));
    // Each prompt costs usd(100_000, 0, 10_000) = $0.28; one at a time, the budget of $0.50 is reached after two.
    const prompts = Array.from({ length: 6 }, (_, i) => ({ id: `p${i}`, prompt: `plain call ${i}` }));
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    const args = ['prompts.jsonl', '--run-name', 'b', '--prices', 'prices.json', '--max-concurrency', '1', '--batch-size', '1'];
    const stopped = await runGenerate(endpoint.url, prompts, [...args, '--max-cost', '0.5'], { dir });
    expect(stopped.code, stopped.stderr).toBe(5);
    expect(stopped.stderr).toMatch(/spent \$0\.56 of --max-cost 0\.5/);
    expect(stopped.records).toHaveLength(2);

    // The same budget: nothing more starts.
    const again = await runGenerate(endpoint.url, prompts, [...args, '--resume', '--max-cost', '0.5'], { dir });
    expect(again.code).toBe(5);
    expect(again.records).toHaveLength(0);

    const more = await runGenerate(endpoint.url, prompts, [...args, '--resume', '--max-cost', '10', '--progress'], { dir });
    expect(more.code, more.stderr).toBe(0);
    expect(more.records).toHaveLength(4);
    // The progress line counts what the whole run spent, the earlier invocations' records included.
    expect(more.stderr).toMatch(/4\/4 prompts done.*\$1\.6800 spent/);
    expect(statisticsOf(dir, 'b').cost_usd?.total).toBeCloseTo(6 * usd(100_000, 0, 10_000), 9);
  });

  it('--max-tokens stops the intake once the run has used that many tokens', async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = tempDir('hermes-cost-tokens-');
    const prompts = Array.from({ length: 4 }, (_, i) => ({ id: `p${i}`, prompt: `plain call ${i}` }));
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    const result = await runGenerate(
      endpoint.url,
      prompts,
      ['prompts.jsonl', '--run-name', 't', '--max-tokens', '200000', '--max-concurrency', '1', '--batch-size', '1'],
      { dir },
    );
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toContain('220000 tokens of --max-tokens 200000');
    expect(result.records as Trajectory[]).toHaveLength(2);
  });
});
