// A run killed while a delegating prompt is unfinished: its sub-agents' records never outlive it as
// orphans. A sub-agent's record is written only with its root's, in one append, so a SIGKILL after the
// sub-agents have finished and before the root has leaves nothing of that prompt; and a kill in the
// middle of that append (the root's line cut, its sub-agents' lines whole) has the sub-agents' lines
// cut off with the torn root on resume. Either way the resumed run holds each of the four linked
// records once, and trajectories.jsonl and statistics.json agree with the batch files.
import { readdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '@hermes-datagen/core';
import type { Script, ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate, startGenerate, TEST_MODEL } from '../util/generate.js';
import { expectRunInvariants, readRun } from '../util/runDirectory.js';

const SCRIPT: Script = {
  sequences: [
    {
      match: { contains: 'split this' },
      replies: [
        {
          reasoning: 'Three parts, in parallel.',
          tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ prompt: 'sub part A' }, { prompt: 'sub part B' }, { prompt: 'sub part C' }] } }],
        },
        { reasoning: 'All three answered.', content: 'combined answer' },
      ],
    },
    { match: { regex: '^sub part' }, replies: [{ reasoning: 'My part.', content: 'sub answer' }] },
  ],
};

const PROMPTS = [{ prompt: 'split this task', id: 'root' }];
const RUN = ['prompts.jsonl', '--run-name', 'r', '--toolsets', 'delegation,todo'];
const IDS = ['root', 'root/d0.0', 'root/d0.1', 'root/d0.2'];

function dataset(): string {
  const dir = tempDir('hermes-delegate-kill-');
  writeFiles(dir, { 'prompts.jsonl': jsonl(PROMPTS) });
  return dir;
}

const chatRequests = (ep: ScriptedEndpoint): number => ep.requests.filter((request) => request.path.endsWith('/chat/completions')).length;

describe('hermes-generate --run-name with delegate_task, killed', () => {
  it('after the sub-agents finished and before the root did: nothing of the prompt is left, and resume writes all four once', async () => {
    // Requests 1-4: the root's first call and its three sub-agents; the 5th, the root's next call
    // (which carries the sub-agents' answers), is never answered, and the process is killed in it.
    const endpoint = await scriptedEndpoint({ script: { ...SCRIPT, faults: [{ kind: 'timeout', when: { nth: [5] } }] } });
    const dir = dataset();
    const killed = startGenerate(dir, [...RUN, '--base-url', endpoint.url, '--model', TEST_MODEL], { killWhen: () => chatRequests(endpoint) >= 5 });
    expect((await killed.ended).signal).toBe('SIGKILL');
    const runDir = join(dir, 'data', 'r');
    const batches = readdirSync(runDir).filter((name) => name.startsWith('batch_'));
    expect(batches.map((name) => readFileSync(join(runDir, name), 'utf8')).join('')).toBe('');

    const resumed = await runGenerate(endpoint.url, PROMPTS, [...RUN, '--resume'], { dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const run = expectRunInvariants(runDir);
    expect(run.records.map((record) => record['id']).sort()).toEqual(IDS);
    expect(run.statistics).toMatchObject({ trajectories: 4 });
  });

  it("in the middle of the prompt's append (its root line cut, its sub-agents' lines whole): resume cuts the sub-agents too and writes all four once", async () => {
    const endpoint = await scriptedEndpoint({ script: SCRIPT });
    const dir = dataset();
    const first = await runGenerate(endpoint.url, PROMPTS, RUN, { dir });
    expect(first.code, first.stderr).toBe(0);
    const runDir = join(dir, 'data', 'r');
    const [file] = readRun(runDir).batchFiles;
    // What a kill during the one write of the four lines leaves: the sub-agents' three lines and part of the root's.
    const text = readFileSync(join(runDir, file!), 'utf8');
    const lines = text.split('\n');
    expect((JSON.parse(lines[3]!) as Trajectory).id).toBe('root');
    truncateSync(join(runDir, file!), Buffer.byteLength(lines.slice(0, 3).join('\n')) + 1 + 100);

    const resumed = await runGenerate(endpoint.url, PROMPTS, [...RUN, '--resume'], { dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The sub-agents' lines are in the order they finished.
    const cut = /its last line was cut off \(100 bytes, a run killed mid-write\); removed with the 3 sub-agent records before it \(([^)]*)\)/.exec(
      resumed.stderr,
    );
    expect(cut?.[1]?.split(', ').sort()).toEqual(IDS.slice(1));
    // All four ran again, and each is in the run once.
    expect(resumed.records.map((record) => record.id).sort()).toEqual(IDS);
    const run = expectRunInvariants(runDir);
    expect(run.records.map((record) => record['id']).sort()).toEqual(IDS);
    expect(run.statistics).toMatchObject({ trajectories: 4 });
    expect(run.manifest.invocations[1]).toMatchObject({ resumed: true, records_written: 4 });
  });
});
