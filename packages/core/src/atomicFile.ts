// Small files that must never be seen half-written (checkpoints, summaries, --stats-out):
// write a temp file beside the target, fsync it, rename it over the target (as upstream Hermes #297).
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

function tempPath(path: string): string {
  return `${dirname(path)}/.${basename(path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const temp = tempPath(path);
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(temp, path);
}

/** The same, synchronously: for the last moment of a forced exit, when nothing asynchronous runs any more. */
function writeFileAtomicSync(path: string, data: string): void {
  const temp = tempPath(path);
  const fd = openSync(temp, 'wx');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temp, path);
}

/** Pretty JSON with a trailing newline: the format of every JSON file (not JSONL) the CLIs write. */
export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeFileAtomic(path, jsonText(value));
}

export function writeJsonAtomicSync(path: string, value: unknown): void {
  writeFileAtomicSync(path, jsonText(value));
}

function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
