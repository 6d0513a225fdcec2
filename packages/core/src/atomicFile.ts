// Small files that must never be seen half-written (checkpoints, summaries, --stats-out):
// write a temp file beside the target, fsync it, rename it over the target (as upstream Hermes #297).
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { outputFailure } from './errors.js';
import { redact } from './secrets.js';

/** A fresh name beside `path` for its temp file (hidden, unique per process and call). */
export function tempPath(path: string): string {
  return `${dirname(path)}/.${basename(path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The text written loses the run's secrets (secrets.ts): a checkpoint, run.json or summary never holds one. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const text = redact(data);
  await writeFileAtomicWith(path, (handle) => handle.writeFile(text, 'utf8'));
}

/**
 * The same protocol for a file written piece by piece (a merge of many inputs): `write` fills the
 * temp file through its handle; it is fsynced and renamed over `path` only when `write` succeeds.
 */
export async function writeFileAtomicWith<T>(path: string, write: (handle: FileHandle) => Promise<T>): Promise<T> {
  const temp = tempPath(path);
  // A full disk (or quota, I/O error, read-only file system) names the file that could not be written, not its temp file.
  const handle = await open(temp, 'wx').catch((err: unknown) => {
    throw outputFailure(err, path) ?? err;
  });
  let result: T;
  try {
    result = await write(handle);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw outputFailure(err, path) ?? err;
  }
  await handle.close();
  await rename(temp, path).catch(async (err: unknown) => {
    await rm(temp, { force: true });
    throw outputFailure(err, path) ?? err;
  });
  return result;
}

/** The same, synchronously: for the last moment of a forced exit, when nothing asynchronous runs any more. */
function writeFileAtomicSync(path: string, data: string): void {
  const text = redact(data);
  const temp = tempPath(path);
  const fd = openSync(temp, 'wx');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw outputFailure(err, path) ?? err;
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
