// Reading and writing a confined path (confine.ts), with the file-system errors a model can cause
// turned into messages that say what to do instead.
import { constants, type Stats } from 'node:fs';
import { chown, lstat, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ConfinedPath } from './confine.js';
import { ToolError, errorCode } from './toolError.js';

/** Files above this are not read whole into one tool result; terminal tools can slice them. */
export const MAX_READ_BYTES = 50 * 1024 * 1024;

export async function readWorkspaceFile(target: ConfinedPath): Promise<Buffer> {
  try {
    await refuseSpecialFile(target);
    // O_NONBLOCK: a named pipe that appeared since the check opens without waiting for a writer,
    // and is refused below, instead of holding the tool (and the run's exit) forever.
    const handle = await open(target.absolute, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stats = await handle.stat();
      refuseUnlessRegular(stats, target);
      const { size } = stats;
      if (size > MAX_READ_BYTES) {
        throw new ToolError(`${target.relative} is ${size} bytes, too large to read here; look at parts of it with terminal (head, sed -n, grep)`);
      }
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw fileError(error, target);
  }
}

/** Writes the whole file, creating missing parent directories; says whether it had to create any. */
export async function writeWorkspaceFile(target: ConfinedPath, content: string): Promise<{ bytesWritten: number; dirsCreated: boolean }> {
  try {
    const firstCreated = await mkdir(dirname(target.absolute), { recursive: true });
    if (firstCreated !== undefined && target.owner !== undefined) await giveTree(firstCreated, dirname(target.absolute), target.owner);
    await refuseSpecialFile(target);
    // O_NOFOLLOW: the path was resolved link-free; a link that appeared since is refused, not followed.
    // O_NONBLOCK: a named pipe that appeared since the check fails to open (ENXIO) or opens without
    // waiting, instead of blocking; it is refused before anything is written.
    const handle = await open(target.absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
    try {
      refuseUnlessRegular(await handle.stat(), target);
      // The sandbox user's commands must be able to change what the file tools wrote.
      if (target.owner !== undefined) await handle.chown(target.owner.uid, target.owner.gid);
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    return { bytesWritten: Buffer.byteLength(content, 'utf8'), dirsCreated: firstCreated !== undefined };
  } catch (error) {
    throw fileError(error, target);
  }
}

/**
 * The file tools work on regular files only: a named pipe, socket or device would block a read or
 * write (forever, for a pipe nobody writes to) or reach outside the workspace's files.
 * Checked before opening (nothing is opened) and again on the opened file (it may have been swapped).
 */
async function refuseSpecialFile(target: ConfinedPath): Promise<void> {
  let stats: Stats;
  try {
    stats = await lstat(target.absolute);
  } catch {
    // Missing (write_file creates it) or unreadable: the open says which.
    return;
  }
  if (!stats.isDirectory()) refuseUnlessRegular(stats, target);
}

function refuseUnlessRegular(stats: Stats, target: ConfinedPath): void {
  if (stats.isFile() || stats.isDirectory()) return;
  throw notRegular(
    target,
    stats.isFIFO()
      ? 'a named pipe (FIFO)'
      : stats.isSocket()
        ? 'a socket'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device'
          : 'not a regular file',
  );
}

function notRegular(target: ConfinedPath, what: string): ToolError {
  return new ToolError(`${target.relative} is ${what}, not a regular file; the file tools read and write regular files only (use terminal for anything else)`);
}

/** Gives the directories mkdir -p made, from the first one down to `last`, to the owner. */
async function giveTree(first: string, last: string, owner: { readonly uid: number; readonly gid: number }): Promise<void> {
  for (let dir = last; ; dir = dirname(dir)) {
    await chown(dir, owner.uid, owner.gid);
    if (dir === first || dir === dirname(dir)) return;
  }
}

/** True when the bytes look like a binary file (a NUL byte near the start, as grep and git decide). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

function fileError(error: unknown, target: ConfinedPath): unknown {
  switch (errorCode(error)) {
    case 'ENOENT':
      return new ToolError(`file not found: ${target.relative}; use search_files with target "files" to find it`);
    case 'EISDIR':
      return new ToolError(`${target.relative} is a directory, not a file; list it with terminal (ls) or search_files`);
    case 'ENOTDIR':
    // mkdir -p meets a file where a parent directory should be.
    case 'EEXIST':
      return new ToolError(`a parent of ${target.relative} is a file, not a directory`);
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`permission denied: ${target.relative}`);
    // Opening a socket, or a named pipe for writing with no reader, non-blocking.
    case 'ENXIO':
      return notRegular(target, 'a named pipe or socket');
    case 'ELOOP':
      return new ToolError(`${target.relative} became a symbolic link while being written; refusing to follow it`);
    default:
      return error;
  }
}
