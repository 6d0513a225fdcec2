// File descriptors running out is back-pressure, never a result: under `ulimit -n 256` at -c 256 with
// real tools (terminal and write_file), hermes-generate lowers its concurrency to what fits (saying
// so), and every record is complete with every tool call successful, exit 0, in stream mode and in
// run mode (where the run directory is whole).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '@hermes-datagen/core';
import type { ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';

const PROMPTS = Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, prompt: `task ${i}` }));

async function toolEndpoint(): Promise<ScriptedEndpoint> {
  return scriptedEndpoint({
    apiKey: TEST_API_KEY,
    latencyMs: 20,
    recordRequests: false,
    script: {
      sequences: [
        {
          match: { regex: '.' },
          replies: [
            { reasoning: 'Run it.', tool_calls: [{ name: 'terminal', arguments: { command: 'echo hi; cat /etc/hostname > /dev/null' } }] },
            { reasoning: 'Keep it.', tool_calls: [{ name: 'write_file', arguments: { path: 'notes/a.txt', content: 'x' } }] },
            { reasoning: 'Done.', content: 'ok' },
          ],
        },
      ],
    },
  });
}

function expectEveryToolCallSucceeded(records: readonly Trajectory[]): void {
  for (const record of records) {
    expect(record.completed, record.id).toBe(true);
    expect(record.tool_stats['terminal'], record.id).toMatchObject({ count: 1, success: 1, failure: 0 });
    expect(record.tool_stats['write_file'], record.id).toMatchObject({ count: 1, success: 1, failure: 0 });
  }
}

describe('hermes-generate under ulimit -n 256 at -c 256 with real tools', () => {
  it('stream mode: the concurrency fits the limit, exit 0, every tool call succeeded', async () => {
    const endpoint = await toolEndpoint();
    const run = await runGenerate(endpoint.url, PROMPTS, ['-c', '256', '--toolsets', 'terminal,file'], { maxOpenFiles: 256 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/256 prompts at once need about \d+ open files and this process may open 256 \(ulimit -n\): at most \d+ run at once/);
    expect(run.stderr).not.toMatch(/EMFILE|ENFILE|internal error|ended unexpectedly/);
    expect(run.records.map((record) => record.id).sort()).toEqual(PROMPTS.map((row) => row.id).sort());
    expectEveryToolCallSucceeded(run.records);
  });

  it('run mode: exit 0, the run directory whole (batch files, checkpoint, statistics), every tool call succeeded', async () => {
    const endpoint = await toolEndpoint();
    const dir = tempDir('hermes-fds-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(PROMPTS) });
    const run = await runGenerate(endpoint.url, PROMPTS, ['prompts.jsonl', '--run-name', 'r', '-c', '256', '--toolsets', 'terminal,file'], {
      dir,
      maxOpenFiles: 256,
    });
    expect(run.code, run.stderr).toBe(0);
    // -c applies in run mode as in stream mode (num-workers x batch-size would be 40, which fits).
    expect(run.stderr).toMatch(/256 prompts at once need about \d+ open files/);
    expect(run.stderr).not.toMatch(/EMFILE|ENFILE|internal error|ended unexpectedly/);
    const contents = expectRunInvariants(join(dir, 'data', 'r'));
    expect(contents.records).toHaveLength(PROMPTS.length);
    expect(contents.failures).toEqual([]);
    expectEveryToolCallSucceeded(contents.records as unknown[] as Trajectory[]);
  });
});
