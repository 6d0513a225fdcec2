// A --resume cleans up after the invocations that were killed before it: the workspaces of a dead
// invocation of the same run (its own root under the temp directory), the temp files of interrupted
// atomic writes in the run directory (a kill during a checkpoint or the merge), and batch files a kill
// left empty.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Script } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { startGenerate, TEST_MODEL, type StartedGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { until } from '../util/until.js';

const PROMPTS = Array.from({ length: 6 }, (_, i) => ({ id: `p${i}`, prompt: `task ${i}` }));

function script(hold: boolean): Script {
  return {
    sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Done.', content: 'ok' }] }],
    faults: hold ? [{ kind: 'slow', delay_ms: 600_000 }] : [],
  };
}

/** hermes-generate on the run with its default workspace root, under `tmp` (TMPDIR). */
function start(url: string, dir: string, tmp: string): StartedGenerate {
  const run = ['prompts.jsonl', '--base-url', url, '--model', TEST_MODEL, '--run-name', 'r', '--resume', '--toolsets', 'file'];
  return startGenerate(dir, run, { env: { TMPDIR: tmp } });
}

describe('hermes-generate --resume removes the leftovers of killed invocations', () => {
  it("removes a dead invocation's workspaces and sandbox directories, the temp files of interrupted writes and empty batch files", async () => {
    let endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY, script: script(true) });
    const dir = tempDir('hermes-leftovers-');
    const tmp = tempDir('hermes-leftovers-tmp-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(PROMPTS) });
    const first = start(endpoint.url, dir, tmp);
    const root = join(tmp, `hermes-generate-${first.child.pid}`);
    // Every prompt is held by its model call, each in its workspace.
    await until(() => existsSync(root) && readdirSync(root).filter((name) => name.startsWith('prompt-')).length === PROMPTS.length);
    first.child.kill('SIGKILL');
    expect((await first.ended).signal).toBe('SIGKILL');
    expect(existsSync(root)).toBe(true);

    // What a kill during a checkpoint write or the merge, and one right after a batch file's creation, leave.
    const runDir = join(dir, 'data', 'r');
    writeFiles(runDir, {
      [`.checkpoint.json.tmp-${first.child.pid}-a1b2c3`]: '{"done":',
      [`.trajectories.jsonl.tmp-${first.child.pid}-d4e5f6`]: 'x'.repeat(4096),
      'batch_7.jsonl': '',
    });
    // And the kill left its sandbox directory in the temp directory (only an exit removes it).
    const sandboxDirs = (): string[] => readdirSync(tmp).filter((name) => name.startsWith(`hermes-sandbox-${first.child.pid}-`));
    expect(sandboxDirs()).toHaveLength(1);

    const port = Number(new URL(endpoint.url).port);
    await endpoint.close();
    endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY, script: script(false), port });
    const second = await start(endpoint.url, dir, tmp).ended;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/removed 2 temp files of interrupted writes \(0\.0 MB\) and 1 empty batch file a kill left/);
    expect(second.stderr).toMatch(new RegExp(`removed the workspaces of the dead invocation ${first.child.pid} of this run`));
    expect(existsSync(root)).toBe(false);
    expect(second.stderr).toContain(`removed 1 sandbox temp directory of hermes-generate processes that are gone (${tmp})`);
    expect(sandboxDirs()).toEqual([]);
    expect(readdirSync(runDir).filter((name) => name.includes('.tmp-') || name === 'batch_7.jsonl')).toEqual([]);
    expect(
      expectRunInvariants(runDir)
        .records.map((record) => record['id'])
        .sort(),
    ).toEqual(PROMPTS.map((row) => row.id));
    // No workspace root of this run is left in the temp directory.
    expect(readdirSync(tmp).filter((name) => name.startsWith('hermes-generate-'))).toEqual([]);
  });
});
