// delegate_task: a prompt whose scripted model delegates to three sub-agents yields four linked
// records (metadata.parent_id, trace_id, depth), every request goes to the one endpoint, and each
// carries the run, its record and the chain's trace id where a gateway logs them (the `user` field
// and the X-Hermes-Trace header).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, parseJsonl, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants, trajectoriesOf } from '../util/runDirectory.js';

describe('hermes-generate delegate_task', () => {
  it('runs three sub-agents against the one endpoint and writes four linked records, with trace fields on every request', async () => {
    const endpoint = await scriptedEndpoint({
      script: {
        sequences: [
          {
            match: { contains: 'split this' },
            replies: [
              {
                reasoning: 'Three parts, in parallel.',
                tool_calls: [
                  {
                    name: 'delegate_task',
                    arguments: { tasks: [{ prompt: 'sub part A' }, { prompt: 'sub part B' }, { prompt: 'sub part C', toolsets: ['todo'] }] },
                  },
                ],
              },
              { reasoning: 'All three answered.', content: 'combined answer' },
            ],
          },
          { match: { regex: '^sub part (.)' }, replies: [{ reasoning: 'My part.', content: 'sub answer' }] },
        ],
      },
    });
    const dir = tempDir('hermes-delegate-');
    const prompts = [{ prompt: 'split this task', id: 'root' }];
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const result = await runGenerate(endpoint.url, prompts, ['prompts.jsonl', '--run-name', 'r', '--toolsets', 'delegation,todo'], { dir });
    expect(result.code, result.stderr).toBe(0);

    const run = expectRunInvariants(join(dir, 'data', 'r'));
    const records = trajectoriesOf(run);
    expect(records).toHaveLength(4);
    const root = records.find((r) => r.id === 'root')!;
    const subs = records.filter((r) => r.id !== 'root');
    expect(subs.map((r) => r.id).sort()).toEqual(['root/d0.0', 'root/d0.1', 'root/d0.2']);
    for (const sub of subs) {
      expect(sub.metadata).toMatchObject({ parent_id: 'root', trace_id: root.metadata.trace_id, depth: 1, run_name: 'r' });
      expect(sub.prompt_index).toBe(0);
      // One level only (--max-depth 1): a sub-agent is not offered delegate_task.
      expect(sub.conversations[0]!.value).not.toContain('delegate_task');
    }
    expect(subs.find((r) => r.id === 'root/d0.2')!.toolsets_used).toEqual(['todo']);
    // The sub-agents' answers came back as the tool result.
    const toolTurn = root.conversations.find((turn) => turn.from === 'tool')!;
    expect(toolTurn.value.match(/sub answer/g)).toHaveLength(3);
    expect(root.tool_stats['delegate_task']).toMatchObject({ count: 1, success: 1 });
    // stdout has all four.
    expect(result.records).toHaveLength(4);

    // hermes-stats sql joins each sub-agent to the record that delegated it.
    const joined = await runProcess(
      binPath('stats', 'hermes-stats'),
      [
        'sql',
        'SELECT t.id, p.id AS parent, t.depth, t.trace_id = p.trace_id AS same_trace FROM trajectories t JOIN trajectories p ON p.id = t.parent_id ORDER BY t.id',
        join('data', 'r'),
      ],
      { cwd: dir },
    );
    expect(joined.code, joined.stderr).toBe(0);
    expect(parseJsonl(joined.stdout)).toEqual(['root/d0.0', 'root/d0.1', 'root/d0.2'].map((id) => ({ id, parent: 'root', depth: 1, same_trace: true })));

    const calls = endpoint.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(calls).toHaveLength(5);
    for (const call of calls) {
      const body = call.body as { user: string; messages: { content: string }[] };
      const recordId = body.messages[0]!.content.startsWith('sub part') ? `root/d0.${'ABC'.indexOf(body.messages[0]!.content.slice(-1))}` : 'root';
      expect(body.user).toBe(`hermes:r:${recordId}:${root.metadata.trace_id}`);
      expect(call.headers['x-hermes-trace']).toBe(`run=r; record=${recordId}; trace=${root.metadata.trace_id}`);
    }
  });
});
