// Path confinement of the file tools: every path the model names must end up inside the prompt's
// workspace once `..` and symbolic links are resolved.
//
// - Relative paths are taken from the workspace (the current directory of terminal commands).
// - Absolute paths are allowed when they resolve inside the workspace: a model that runs `pwd` and
//   then uses the absolute path it saw is doing nothing wrong. In a docker sandbox the workspace is
//   mounted at /workspace, so `/workspace/...` means the same files.
// - Symbolic links are resolved as the kernel would, on the part of the path that exists (a link a
//   command created, a link to a directory with a missing file below it, a dangling link), so no
//   link leads out.
// The tools then operate on the resolved path, never on the string the model sent.
//
// What this does not cover: a process that swaps a directory for a link between the check and the
// file operation. Commands run one at a time and leave no process behind (runProcess.ts), and the
// final component is opened with O_NOFOLLOW where a file is written; the docker sandbox is the
// isolation to use when the commands themselves are not trusted.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
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
  /** Who must own what is written there: the sandbox user tool commands run as (sandbox.ts), when not this process. */
  owner?: { readonly uid: number; readonly gid: number } | undefined;
}

export interface ConfineOptions {
  /** An absolute directory that stands for the workspace (the sandbox's mount point). */
  containerRoot?: string;
}

export async function confinePath(workspace: string, requested: string, options: ConfineOptions = {}): Promise<ConfinedPath> {
  if (requested.trim() === '') throw new ToolError('path is empty: name a file relative to the workspace');
  if (requested.includes('\0')) throw new ToolError('path contains a NUL character');
  const root = await realpath(workspace);
  const resolved = await resolvePhysically(absoluteText(root, requested, options.containerRoot));
  if (resolved !== root && !resolved.startsWith(root + sep)) {
    throw new ToolError(
      `path escapes the workspace: "${requested}" resolves outside it (through "..", an absolute path or a symbolic link). ` +
        'Use paths inside the workspace, relative to the directory terminal commands start in.',
    );
  }
  return { absolute: resolved, relative: relative(root, resolved) || '.' };
}

/** confinePath with the context's workspace and, in a docker sandbox, its mount point. */
export async function confineToolPath(ctx: ToolContext, requested: string): Promise<ConfinedPath> {
  const confined = await confinePath(ctx.workspace, requested, ctx.sandbox ? { containerRoot: CONTAINER_WORKSPACE } : {});
  const owner = ctx.sandbox ? undefined : ctx.processes.owner;
  return owner === undefined ? confined : { ...confined, owner };
}

/**
 * The requested path as an absolute path, NOT normalised: its `..` segments are resolved by
 * resolvePhysically where they stand, as the shell would resolve them.
 */
function absoluteText(root: string, requested: string, containerRoot: string | undefined): string {
  if (!isAbsolute(requested)) return `${root}/${requested}`;
  if (containerRoot !== undefined && (requested === containerRoot || requested.startsWith(`${containerRoot}/`))) {
    return `${root}/${requested.slice(containerRoot.length)}`;
  }
  return requested;
}

/**
 * Resolves an absolute path the way the kernel looks it up: component by component, following each
 * symbolic link where it stands, so `..` after a link climbs from the link's target (a dangling link
 * `l -> up/../x` with `up -> ..` lands outside, though its text looks inside). From the first missing
 * component on, the rest is appended as text: nothing there exists yet to redirect it.
 */
export async function resolvePhysically(path: string): Promise<string> {
  return walk('/', path, { hops: 0 });
}

async function walk(base: string, text: string, state: { hops: number }): Promise<string> {
  const components = text.split('/').filter((component) => component !== '' && component !== '.');
  let current = isAbsolute(text) ? '/' : base;
  for (let index = 0; index < components.length; index += 1) {
    const component = components[index] ?? '';
    if (component === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, component);
    const kind = await lstatKind(next);
    if (kind === 'missing') return resolve(current, ...components.slice(index));
    if (kind === 'link') {
      state.hops += 1;
      if (state.hops > MAX_LINK_HOPS) throw loopError();
      current = await walk(current, await readlink(next), state);
    } else {
      current = next;
    }
  }
  return current;
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

function loopError(): ToolError {
  return new ToolError('path has too many levels of symbolic links (a link loop); use a path without the loop');
}
