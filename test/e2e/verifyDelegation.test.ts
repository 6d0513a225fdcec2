// hermes-verify on a clean run that used delegate_task: the sub-agents' records (metadata.parent_id,
// depth) are counted apart from the dataset's rows, so a run of 5 prompts that each delegated to 2
// sub-agents passes ("5 of 5 expected", plus 10 sub-agent records), as a stream and as a run directory;
// a prompt whose root record is missing still fails, its sub-agents do not stand in for it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';

const VERIFY = binPath('verify', 'hermes-verify');

describe('hermes-verify and sub-agent records', () => {
  it('a clean run with delegation passes; its sub-agent records are counted apart; a missing root still fails', async () => {
    const endpoint = await scriptedEndpoint({
      script: {
        sequences: [
          {
            match: { regex: '^split task' },
            replies: [
              { reasoning: 'Two parts.', tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ prompt: 'sub part A' }, { prompt: 'sub part B' }] } }] },
              { reasoning: 'Both answered.', content: 'combined answer' },
            ],
          },
          { match: { regex: '^sub part' }, replies: [{ reasoning: 'My part.', content: 'sub answer' }] },
        ],
      },
    });
    const dir = tempDir('hermes-verify-delegation-');
    const prompts = Array.from({ length: 5 }, (_, i) => ({ prompt: `split task ${i}`, id: `root${i}` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const run = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', '--run-name', 'r', '--toolsets', 'delegation,todo'], { dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.records).toHaveLength(15);

    const stream = await runProcess(VERIFY, ['--dataset', 'prompts.jsonl', '-q', '--json', 'v.json', join('data', 'r', 'trajectories.jsonl')], { cwd: dir });
    expect(stream.code, stream.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'v.json'), 'utf8')) as {
      checks: { id: string; status: string; summary: string; numbers: Record<string, unknown> }[];
    };
    const count = report.checks.find((check) => check.id === 'count');
    expect(count?.status).toBe('PASS');
    expect(count?.summary).toMatch(/^5 of 5 expected .*10 sub-agent records \(delegate_task\), counted apart/);
    expect(count?.numbers).toMatchObject({ trajectories: 5, sub_agent_records: 10 });

    const runDir = await runProcess(VERIFY, ['--run-dir', join('data', 'r'), '--dataset', 'prompts.jsonl', '-q'], { cwd: dir });
    expect(runDir.code, runDir.stdout + runDir.stderr).toBe(0);

    // Without root2's own record, its two sub-agents do not make up for it.
    const lines = readFileSync(join(dir, 'data', 'r', 'trajectories.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    writeFileSync(join(dir, 'lost.jsonl'), `${lines.filter((line) => !line.includes('"id":"root2"')).join('\n')}\n`);
    const lost = await runProcess(VERIFY, ['--dataset', 'prompts.jsonl', '-q', 'lost.jsonl'], { cwd: dir });
    expect(lost.code).toBe(1);
    expect(lost.stdout + lost.stderr).toMatch(/missing 1 record of prompt_index 2/);
  });
});
