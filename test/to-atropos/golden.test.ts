// Golden outputs of the three --emit modes over a small corpus: the exact lines (shape, key order,
// selection, pairing, tokens and masks) are kept in golden/. HERMES_UPDATE_GOLDEN=1 rewrites them.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/to-atropos';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { corpus } from './corpus.js';
import { chatmlTokenizerDir } from './tokenizer.js';

const GOLDEN = new URL('golden/', import.meta.url);

function matchesGolden(name: string, stdout: string): void {
  const path = new URL(name, GOLDEN);
  if (process.env['HERMES_UPDATE_GOLDEN'] === '1') writeFileSync(path, stdout);
  expect(stdout).toBe(readFileSync(path, 'utf8'));
}

async function run(args: string[], dir = tempDir()) {
  writeFiles(dir, {
    'in.jsonl': jsonl(corpus),
    'scores.jsonl': jsonl(
      [
        ['p0-a', 1],
        ['p0-b', -1],
        ['p0-c', 0.5],
        ['p1-a', 2],
        ['p1-b', 2],
        ['p2-a', 1],
      ].map(([id, score]) => ({ id, score })),
    ),
  });
  return runInProcess(spec, ['in.jsonl', ...args], { cwd: dir });
}

describe('golden outputs', () => {
  it('--emit sft: the best sequences of each group with a spread, as atropos-sft-gen --save-messages', async () => {
    const result = await run(['--score', 'completed']);
    expect(result.code).toBe(0);
    matchesGolden('sft.jsonl', result.stdout);
    // p0: scores 1, 0, 1 -> the two completed; p1 (1, 1) both, its uniform scores being no matter to SFT; p2 (1).
    expect((parseJsonl(result.stdout) as { score: number }[]).map((line) => line.score)).toEqual([1, 1, 1, 1, 1]);
    expect(result.stderr).toContain('wrote 5 lines from 3 groups');
  });

  it('--emit dpo: seeded pairs, as atropos-dpo-gen --save-messages', async () => {
    const result = await run(['--emit', 'dpo', '--reward-rules', 'default', '--seed', '3']);
    expect(result.code).toBe(0);
    matchesGolden('dpo.jsonl', result.stdout);
    const [pair] = parseJsonl(result.stdout) as { pos: unknown[]; score: number; neg: unknown[] }[];
    expect(Object.keys(pair ?? {})).toEqual(['pos', 'score', 'neg']);
    expect(pair?.score).toBe(30);
  });

  it('--emit scored: ScoredDataGroups as Atropos process mode writes them, with provenance', async () => {
    const dir = tempDir();
    const tokenizer = chatmlTokenizerDir();
    const result = await run(['--emit', 'scored', '--scores', 'scores.jsonl', '--tokenizer', tokenizer, '--group-size', '2', '--messages', 'structured'], dir);
    expect(result.code).toBe(0);
    matchesGolden('scored.jsonl', result.stdout);
    const groups = parseJsonl(result.stdout) as Record<string, unknown>[];
    // p0: first two samples form a group, p0-c is left over; p1 (2, 2) is uniform; p2 is incomplete.
    expect(groups).toHaveLength(1);
    expect(Object.keys(groups[0] ?? {})).toEqual([
      'tokens',
      'masks',
      'scores',
      'advantages',
      'ref_logprobs',
      'messages',
      'generation_params',
      'group_overrides',
      'overrides',
      'images',
      'distill_token_ids',
      'distill_logprobs',
    ]);
    expect(groups[0]).not.toHaveProperty('inference_logprobs');
    expect(groups[0]).not.toHaveProperty('env_id');
    expect(groups[0]?.['overrides']).toEqual([
      { hermes_id: 'p0-a', hermes_prompt_index: 0, hermes_completed: true, hermes_partial: false, hermes_model: 'test/model' },
      { hermes_id: 'p0-b', hermes_prompt_index: 0, hermes_completed: false, hermes_partial: false, hermes_model: 'test/model' },
    ]);
    expect(result.stderr).toMatch(/incomplete group \(prompt_index 0\): 1 of 2 sequences, first at in.jsonl:4/);
    expect(result.stderr).toMatch(/incomplete group \(prompt_index 2\): 1 of 2/);
    expect(result.stderr).toContain('dropped 1 groups: uniform_scores 1; 2 incomplete groups (2 sequences) not written');
  });
});
