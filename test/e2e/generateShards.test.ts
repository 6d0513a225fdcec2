// Many machines: four shards of one dataset run by GNU parallel (as the README's recipe does), each
// into its own run directory, with no coordination; together they hold exactly one record per row,
// and hermes-stats merge of their statistics counts them all.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptId } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, runCommand, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { expectNoSecret, TEST_MODEL } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';

describe('hermes-generate --shard i/N', () => {
  it('4 shards run by GNU parallel hold exactly one record per row between them', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] }] },
    });
    const dir = tempDir('hermes-shards-');
    // Repeated prompts too: shards split rows, not prompt texts.
    const prompts = Array.from({ length: 80 }, (_, i) => ({ prompt: `task ${i % 60}` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const result = await runCommand(
      'parallel',
      [
        '--will-cite',
        '--halt',
        'never',
        '-j',
        '4',
        process.execPath,
        binPath('generate', 'hermes-generate'),
        'prompts.jsonl',
        '--base-url',
        endpoint.url,
        '--model',
        TEST_MODEL,
        '--toolsets',
        'todo',
        '--run-name',
        'shard-{}',
        '--shard',
        '{}/4',
        '-o',
        'out-{}.jsonl',
        '--workspace-root',
        join(dir, 'workspaces'),
        ':::',
        '0',
        '1',
        '2',
        '3',
      ],
      { cwd: dir, env: { HERMES_API_KEY: TEST_API_KEY } },
    );
    expect(result.code, result.stderr).toBe(0);
    expectNoSecret(dir, result);

    const ids = [0, 1, 2, 3].flatMap((shard) => {
      const contents = expectRunInvariants(join(dir, 'data', `shard-${shard}`));
      expect(contents.records.length, `shard ${shard} has a share of the rows`).toBeGreaterThan(5);
      expect(contents.manifest['shard']).toBe(`${shard}/4`);
      return contents.records.map((record) => record['id'] as string);
    });
    expect([...ids].sort()).toEqual(prompts.map((row, index) => promptId(row, index)).sort());

    const merged = await runProcess(
      binPath('stats', 'hermes-stats'),
      ['merge', ...[0, 1, 2, 3].map((shard) => join('data', `shard-${shard}`, 'statistics.json'))],
      { cwd: dir },
    );
    expect(merged.code, merged.stderr).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({ trajectories: 80 });
  });
});
