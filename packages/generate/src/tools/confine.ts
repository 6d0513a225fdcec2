// Path confinement of the file tools: every path the model names must end up inside the prompt's
// workspace once `..` and symbolic links are resolved.
//
// - Relative paths are taken from the workspace (the current directory of terminal commands).
// - Absolute paths are allowed when they resolve inside the workspace: a model that runs `pwd` and
//   then uses the absolute path it saw is doing nothing wrong. In a docker sandbox the workspace is
//   mounted at /workspace, so `/workspace/...` means the same files.
// - Symbolic links are resolved on the part of the path that exists (a link a command created,
//   a link to a directory with a missing file below it, a dangling link), so no link leads out.
// The tools then operate on the resolved path, never on the string the model sent.
//
// What this does not cover: a process that swaps a directory for a link between the check and the
// file operation. Commands run one at a time and leave no process behind (runProcess.ts), and the
// final component is opened with O_NOFOLLOW where a file is written; the docker sandbox is the
// isolation to use when the commands themselves are not trusted.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError, errorCode } from './toolError.js';
import type { ToolContext } from './types.js';

/** Where the docker sandbox mounts the workspace. */
export const CONTAINER_WORKSPACE = '/workspace';

/** Linux gives up after 40 links in one lookup; so do we. */
const MAX_LINK_HOPS = 40;

export interface ConfinedPath {
  /** The resolved, symlink-free absolute path to operate on. */
  absolute: string;
  /** The same path relative to the workspace, for messages and results ('.' for the workspace). */
  relative: string;
}

export interface ConfineOptions {
  /** An absolute directory that stands for the workspace (the sandbox's mount point). */
  containerRoot?: string;
}

export async function confinePath(workspace: string, requested: string, options: ConfineOptions = {}): Promise<ConfinedPath> {
  if (requested.trim() === '') throw new ToolError('path is empty: name a file relative to the workspace');
  if (requested.includes('\0')) throw new ToolError('path contains a NUL character');
  const root = await realpath(workspace);
  const resolved = await resolveExisting(logicalPath(root, requested, options.containerRoot), 0);
  if (resolved !== root && !resolved.startsWith(root + sep)) {
    throw new ToolError(
      `path escapes the workspace: "${requested}" resolves outside it (through "..", an absolute path or a symbolic link). ` +
        'Use paths inside the workspace, relative to the directory terminal commands start in.',
    );
  }
  return { absolute: resolved, relative: relative(root, resolved) || '.' };
}

/** confinePath with the context's workspace and, in a docker sandbox, its mount point. */
export function confineToolPath(ctx: ToolContext, requested: string): Promise<ConfinedPath> {
  return confinePath(ctx.workspace, requested, ctx.sandbox ? { containerRoot: CONTAINER_WORKSPACE } : {});
}

function logicalPath(root: string, requested: string, containerRoot: string | undefined): string {
  if (!isAbsolute(requested)) return resolve(root, requested);
  if (containerRoot !== undefined && (requested === containerRoot || requested.startsWith(containerRoot + '/'))) {
    return resolve(root, relative(containerRoot, requested));
  }
  return resolve(requested);
}

/**
 * Resolves every symbolic link on the longest existing prefix of an absolute, normalised path and
 * appends the missing rest unchanged (it holds no `..`, so it cannot climb back out).
 */
async function resolveExisting(path: string, hops: number): Promise<string> {
  let existing = path;
  const missing: string[] = [];
  for (;;) {
    const kind = await lstatKind(existing);
    if (kind === 'missing') {
      missing.unshift(basename(existing));
      existing = dirname(existing);
      continue;
    }
    if (kind === 'link') return resolveLink(existing, missing, hops);
    return join(await realpathOrToolError(existing), ...missing);
  }
}

async function resolveLink(link: string, missing: readonly string[], hops: number): Promise<string> {
  try {
    return join(await realpath(link), ...missing);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw loopError();
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  // A dangling link: writing through it would create its target, so follow the link text by hand.
  if (hops >= MAX_LINK_HOPS) throw loopError();
  const target = await readlink(link);
  const parent = await realpathOrToolError(dirname(link));
  return resolveExisting(resolve(parent, target, ...missing), hops + 1);
}

async function lstatKind(path: string): Promise<'missing' | 'link' | 'other'> {
  try {
    return (await lstat(path)).isSymbolicLink() ? 'link' : 'other';
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

async function realpathOrToolError(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw loopError();
    throw error;
  }
}

function loopError(): ToolError {
  return new ToolError('path has too many levels of symbolic links (a link loop); use a path without the loop');
}
