// Reading and writing a confined path (confine.ts), with the file-system errors a model can cause
// turned into messages that say what to do instead.
import { constants } from 'node:fs';
import { chown, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ConfinedPath } from './confine.js';
import { ToolError, errorCode } from './toolError.js';

/** Files above this are not read whole into one tool result; terminal tools can slice them. */
export const MAX_READ_BYTES = 50 * 1024 * 1024;

export async function readWorkspaceFile(target: ConfinedPath): Promise<Buffer> {
  try {
    const handle = await open(target.absolute, constants.O_RDONLY);
    try {
      const { size } = await handle.stat();
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
    // O_NOFOLLOW: the path was resolved link-free; a link that appeared since is refused, not followed.
    const handle = await open(target.absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
    try {
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
    case 'ELOOP':
      return new ToolError(`${target.relative} became a symbolic link while being written; refusing to follow it`);
    default:
      return error;
  }
}
