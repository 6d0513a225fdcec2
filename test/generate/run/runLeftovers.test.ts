// The leftovers of interrupted invocations in a run directory: temp files of dead processes and empty
// batch files go, a live process's temp files and everything else stay; a dead holder's own
// workspace root goes, no other directory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeDeadWorkspaces, removeLeftovers } from '@hermes-datagen/generate/internal/run/runLeftovers.js';
import { tempDir, writeFiles } from '../../util/cli.js';
import { quietLogger } from '../../util/runStages.js';

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('run directory leftovers', () => {
  it('removes the temp files of dead processes and empty batch files, and says so; keeps the rest', async () => {
    const dir = tempDir();
    const dead = deadPid();
    writeFiles(dir, {
      [`.checkpoint.json.tmp-${dead}-abc123`]: 'x'.repeat(1_000_000),
      [`.trajectories.jsonl.tmp-${dead}-zz9`]: 'y'.repeat(500_000),
      [`run.lock.${dead}.0a1b2c3d.tmp`]: '{}',
      [`.statistics.json.tmp-${process.pid}-live01`]: 'mine',
      'batch_0.jsonl': '{"id":"a"}\n',
      'batch_1.jsonl': '',
      'checkpoint.json': '{}',
    });
    const { log, text } = quietLogger();
    const removed = await removeLeftovers(dir, log);
    expect(removed).toEqual({ tempFiles: 3, tempBytes: 1_500_002, emptyBatchFiles: 1 });
    expect(readdirSync(dir).sort()).toEqual([`.statistics.json.tmp-${process.pid}-live01`, 'batch_0.jsonl', 'checkpoint.json']);
    expect(text()).toMatch(/removed 3 temp files of interrupted writes \(1\.5 MB\) and 1 empty batch file a kill left/);
  });

  it('says nothing when there is nothing to remove', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'batch_0.jsonl': '{"id":"a"}\n' });
    const { log, text } = quietLogger();
    expect(await removeLeftovers(dir, log)).toEqual({ tempFiles: 0, tempBytes: 0, emptyBatchFiles: 0 });
    expect(text()).toBe('');
  });

  it("removes a dead holder's own workspace root, never a directory of another name or of a live process", async () => {
    const tmp = tempDir();
    const dead = deadPid();
    const root = join(tmp, `hermes-generate-${dead}`);
    mkdirSync(join(root, 'prompt-abc'), { recursive: true });
    writeFileSync(join(root, 'prompt-abc', 'f.txt'), 'x');
    const other = join(tmp, 'my-workspaces');
    mkdirSync(other);
    const live = join(tmp, `hermes-generate-${process.pid}`);
    mkdirSync(live);
    const { log, text } = quietLogger();
    await removeDeadWorkspaces(root, dead, log);
    await removeDeadWorkspaces(other, dead, log);
    await removeDeadWorkspaces(live, process.pid, log);
    expect(existsSync(root)).toBe(false);
    expect(existsSync(other)).toBe(true);
    expect(existsSync(live)).toBe(true);
    expect(text()).toMatch(new RegExp(`removed the workspaces of the dead invocation ${dead} of this run`));
  });
});
