// Small files that must never be seen half-written (checkpoints, summaries, --stats-out):
// write a temp file beside the target, fsync it, rename it over the target (as upstream Hermes #297).
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const temp = `${dirname(path)}/.${basename(path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
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

/** Pretty JSON with a trailing newline: the format of every JSON file (not JSONL) the CLIs write. */
export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}
