// What interrupted invocations leave in a run directory, removed by the next one under the run's lock
// (runLock.ts: no other invocation writes the directory meanwhile): the temp files of atomic writes
// a kill cut short (checkpoint.json, run.json, failures.jsonl, the merge's trajectories.jsonl and
// statistics.json: `.<name>.tmp-<pid>-<id>`, which can be as large as the merged run), the lock's own
// temp files, and batch files a kill left empty (created, never written: nothing in them is done).
// Temp files of a process that is still alive are left alone. And the workspace root of a dead
// invocation that held the run (runLock.ts names it) goes with its stale lock.
import { readdir, rm, stat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Logger } from '@hermes-datagen/core';
import { isAlive } from '../processAlive.js';
import { removeWorkspaceRoot } from '../tools/workspace.js';
import { listBatchFiles } from './batchFiles.js';
import { LOCK_FILE } from './runLock.js';

/** core's tempPath (atomicFile.ts): `.<name>.tmp-<pid>-<random>`. */
const ATOMIC_TEMP = /^\..+\.tmp-(\d+)-[a-z0-9]+$/;
/** runLock.ts: `run.lock.<pid>.<hex>.tmp` while a lock is being taken, `run.lock.stale.<pid>.<hex>` while a stale one is broken. */
const LOCK_TEMP = new RegExp(`^${LOCK_FILE.replace('.', '\\.')}\\.(?:stale\\.)?(\\d+)\\.[0-9a-f]+(?:\\.tmp)?$`);

export interface Leftovers {
  readonly tempFiles: number;
  readonly tempBytes: number;
  readonly emptyBatchFiles: number;
}

/** Removes the leftovers of interrupted invocations from `dir`, says what went; returns the counts. */
export async function removeLeftovers(dir: string, log: Logger): Promise<Leftovers> {
  let tempFiles = 0;
  let tempBytes = 0;
  for (const name of await readdir(dir)) {
    const pid = ATOMIC_TEMP.exec(name)?.[1] ?? LOCK_TEMP.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    const path = join(dir, name);
    tempBytes += await stat(path).then(
      (info) => info.size,
      () => 0,
    );
    await rm(path, { force: true });
    tempFiles += 1;
  }
  let emptyBatchFiles = 0;
  for (const file of await listBatchFiles(dir)) {
    if ((await stat(file.path)).size > 0) continue;
    await unlink(file.path);
    emptyBatchFiles += 1;
  }
  const parts = [
    ...(tempFiles > 0 ? [`${tempFiles} temp file${tempFiles === 1 ? '' : 's'} of interrupted writes (${(tempBytes / 1e6).toFixed(1)} MB)`] : []),
    ...(emptyBatchFiles > 0 ? [`${emptyBatchFiles} empty batch file${emptyBatchFiles === 1 ? '' : 's'} a kill left`] : []),
  ];
  if (parts.length > 0) log.info(`${dir}: removed ${parts.join(' and ')}`);
  return { tempFiles, tempBytes, emptyBatchFiles };
}

/**
 * The workspace root of a dead invocation (its own `hermes-generate-<pid>` under the temp directory,
 * as the lock it left names it), removed with everything in it; another name is never touched.
 */
export async function removeDeadWorkspaces(root: string, pid: number, log: Logger): Promise<void> {
  if (basename(root) !== `hermes-generate-${pid}` || isAlive(pid)) return;
  const there = await stat(root).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!there) return;
  await removeWorkspaceRoot(root);
  log.info(`removed the workspaces of the dead invocation ${pid} of this run (${root})`);
}
