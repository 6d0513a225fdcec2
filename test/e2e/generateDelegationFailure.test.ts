// A sub-agent that fails (its model call refused) is never lost: its parent's record is written with
// the delegate_task result saying which task failed and tool_stats counting the call as a failure;
// failures.jsonl lists it with its parent id, depth and class; and a --resume runs it again on its own,
// at its place in the chain, after which the run holds every record once and no failure.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Script } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { validator } from '@hermes-datagen/core';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants, trajectoriesOf } from '../util/runDirectory.js';

function script(failing: boolean): Script {
  return {
    sequences: [
      {
        match: { contains: 'split this' },
        replies: [
          {
            reasoning: 'Two parts.',
            tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ prompt: 'sub part A' }, { prompt: 'sub part B [fail]', toolsets: ['todo'] }] } }],
          },
          { reasoning: 'Combined what came back.', content: 'combined answer' },
        ],
      },
      { match: { regex: '^sub part' }, replies: [{ reasoning: 'My part.', content: 'sub answer' }] },
    ],
    faults: failing ? [{ kind: 'unauthorized', when: { prompt: { contains: '[fail]' } } }] : [],
  };
}

describe('hermes-generate: a failed sub-agent', () => {
  it('is a failure line with its parent and class, fails its parent delegate_task call, and runs again on --resume', async () => {
    let endpoint = await scriptedEndpoint({ script: script(true) });
    const dir = tempDir('hermes-delegate-fail-');
    const prompts = [{ prompt: 'split this task', id: 'root' }];
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const args = ['prompts.jsonl', '--run-name', 'r', '--resume', '--toolsets', 'delegation,todo'];
    const first = await runGenerate(endpoint.url, prompts, args, { dir });
    // 401 needs a fix: exit 1, as for a root prompt that failed so.
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/sub-agent root\/d0\.1 of root failed \(unauthorized; --resume runs it again\)/);

    const run = expectRunInvariants(join(dir, 'data', 'r'));
    expect(
      trajectoriesOf(run)
        .map((record) => record.id)
        .sort(),
    ).toEqual(['root', 'root/d0.0']);
    const root = trajectoriesOf(run).find((record) => record.id === 'root')!;
    expect(root.tool_stats['delegate_task']).toMatchObject({ count: 1, success: 0, failure: 1 });
    const toolTurn = root.conversations.find((turn) => turn.from === 'tool')!;
    expect(toolTurn.value).toMatch(/1 of 2 sub-agents failed: task 1 \(root\/d0\.1\)/);
    expect(run.failures).toHaveLength(1);
    const [failure] = run.failures;
    expect(validator('failure')(failure)).toBeNull();
    expect(failure).toMatchObject({ id: 'root/d0.1', parent_id: 'root', depth: 1, error_class: 'unauthorized', line: 1, prompt_index: 0 });
    expect(JSON.parse(failure!.raw ?? '')).toEqual({ prompt: 'sub part B [fail]', toolsets: ['todo'] });

    // The key fixed (here: the endpoint no longer refuses), --resume runs the failed sub-agent alone.
    const port = Number(new URL(endpoint.url).port);
    await endpoint.close();
    endpoint = await scriptedEndpoint({ script: script(false), port });
    const second = await runGenerate(endpoint.url, prompts, args, { dir });
    expect(second.code, second.stderr).toBe(0);
    expect(second.records.map((record) => record.id)).toEqual(['root/d0.1']);
    const done = expectRunInvariants(join(dir, 'data', 'r'));
    expect(done.failures).toEqual([]);
    const records = trajectoriesOf(done);
    expect(records.map((record) => record.id).sort()).toEqual(['root', 'root/d0.0', 'root/d0.1']);
    const retried = records.find((record) => record.id === 'root/d0.1')!;
    expect(retried.metadata).toMatchObject({ parent_id: 'root', depth: 1, run_name: 'r' });
    expect(retried.toolsets_used).toEqual(['todo']);
    // Only that one ran again: the root prompt was not sent a second time.
    expect(endpoint.requests.filter((request) => JSON.stringify(request.body).includes('split this'))).toEqual([]);
  });
});
