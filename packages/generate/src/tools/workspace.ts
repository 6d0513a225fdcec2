// One fresh workspace directory per prompt, under a workspace root (by default
// <tmpdir>/hermes-generate-<pid>). When the dataset row names a `cwd`, that directory is COPIED into
// the workspace rather than used in place: the agent's commands and file tools then work on a copy,
// so a run can never modify or delete the user's files, and prompts that share a cwd cannot see each
// other's changes. The cost is the copy (a large cwd, node_modules included, is copied once per
// prompt); point cwd at a small fixture directory.
//
// Symbolic links are copied as links only when they point inside the copied tree (relative, so they
// keep working in the copy). Links that lead out of it (absolute, or through "..") are left out and
// listed in `skippedLinks`: they would give the agent a way back into the user's files. Sockets,
// FIFOs and devices are left out too.
import { rmSync } from 'node:fs';
import { retryExhausted } from './exhaustion.js';
import { chmod, cp, lchown, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { resolvePhysically } from './confine.js';
import { errorCode } from './toolError.js';

export interface PromptWorkspace {
  /** The absolute, symlink-free path of the workspace: ToolContext.workspace. */
  readonly path: string;
  /** Entries of the copied cwd that were not copied (links leading out, special files), relative to it. */
  readonly skipped: readonly string[];
  /** Removes the workspace and everything in it. */
  cleanup(): Promise<void>;
}

export interface WorkspaceOptions {
  /** Directory the workspaces are created in; created if missing. Default: defaultWorkspaceRoot(). */
  root?: string;
  /** A directory to copy into the workspace (the row's cwd), taken relative to the process's cwd. */
  copyFrom?: string;
  /** The row's cwd must lie under this directory (--cwd-root); anything else is refused. */
  cwdRoot?: string;
  /** The sandbox user tool commands run as, when not this process's: the workspace and its copy are given to it. */
  owner?: { readonly uid: number; readonly gid: number } | undefined;
}

/** A row's cwd that cannot be used; the message says which and what to do. */
export class WorkspaceError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'WorkspaceError';
  }
}

export function defaultWorkspaceRoot(): string {
  return join(tmpdir(), `hermes-generate-${process.pid}`);
}

export async function createWorkspace(options: WorkspaceOptions = {}): Promise<PromptWorkspace> {
  const source = options.copyFrom === undefined ? undefined : await sourceDirectory(options.copyFrom, options.cwdRoot);
  const root = options.root ?? defaultWorkspaceRoot();
  await mkdir(root, { recursive: true });
  const path = await realpath(await mkdtemp(join(root, 'prompt-')));
  const skipped: string[] = [];
  try {
    if (source !== undefined)
      await copyTree(source, path, skipped).catch((error: unknown) => {
        // What the kernel's directories (/proc/self, /sys) or an unreadable file make of a copy: the row's problem.
        throw new WorkspaceError(
          `the row's cwd "${options.copyFrom}" could not be copied into the workspace (${errorCode(error) ?? String(error)}); point cwd at a plain directory of files`,
        );
      });
    if (options.owner !== undefined) await giveAll(path, options.owner);
  } catch (error) {
    await removeTree(path);
    throw error;
  }
  return { path, skipped, cleanup: () => removeTree(path) };
}

/** Removes the whole workspace root (all prompts' workspaces) at the end of a run. */
export function removeWorkspaceRoot(root: string = defaultWorkspaceRoot()): Promise<void> {
  return removeTree(root);
}

/**
 * The workspaces of one run, under one root. It knows which exist right now, so that a forced exit
 * (a second Ctrl-C), which has no time for the prompts' own cleanup, still removes them all, and
 * the root as well when the run made it (the default temp root).
 */
export class RunWorkspaces {
  private readonly live = new Set<string>();

  public constructor(
    public readonly root: string,
    /** The run made the root (no --workspace-root): it is removed with everything in it. */
    private readonly ownsRoot: boolean,
    /** The rows' cwd root and the sandbox user (createWorkspace's options). */
    private readonly options: Pick<WorkspaceOptions, 'cwdRoot' | 'owner'> = {},
  ) {}

  public async create(copyFrom?: string): Promise<PromptWorkspace> {
    // Out of file descriptors while copying or chowning: wait and try again (exhaustion.ts), never a failed prompt for it.
    const workspace = await retryExhausted(
      () => createWorkspace({ ...this.options, root: this.root, ...(copyFrom === undefined ? {} : { copyFrom }) }),
      undefined,
    );
    this.live.add(workspace.path);
    return {
      path: workspace.path,
      skipped: workspace.skipped,
      cleanup: async () => {
        await workspace.cleanup();
        this.live.delete(workspace.path);
      },
    };
  }

  /** At the end of a run: the root goes if the run made it (the prompts removed their own workspaces). */
  public async remove(): Promise<void> {
    if (this.ownsRoot) await removeWorkspaceRoot(this.root);
  }

  /** Synchronous, for a forced exit: every workspace that still exists, and the root if the run made it. */
  public removeNow(): void {
    for (const path of this.ownsRoot ? [this.root] : this.live) removeTreeNow(path);
    this.live.clear();
  }
}

async function sourceDirectory(cwd: string, cwdRoot: string | undefined): Promise<string> {
  let real: string | undefined;
  try {
    real = await realpath(resolve(cwd));
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR' && errorCode(error) !== 'EACCES') throw error;
  }
  // Judged on the real path: a link inside the root that leads out of it is outside.
  if (cwdRoot !== undefined) {
    const root = await realpath(cwdRoot).catch(() => resolve(cwdRoot));
    if (real === undefined ? !isInside(resolve(cwd), root) : !isInside(real, root)) {
      throw new WorkspaceError(
        `the row's cwd "${cwd}" is outside ${root}, the directory rows' cwd must lie under (--cwd-root, default: the dataset file's directory); move the directory there or pass --cwd-root`,
      );
    }
  }
  if (real !== undefined && (await stat(real)).isDirectory()) return real;
  throw new WorkspaceError(`the row's cwd "${cwd}" is not an existing directory; fix the cwd field or leave it out`);
}

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** Gives the whole tree to the owner (links themselves, not what they point to). */
async function giveAll(path: string, owner: { readonly uid: number; readonly gid: number }): Promise<void> {
  await lchown(path, owner.uid, owner.gid);
  if (!(await lstat(path)).isDirectory()) return;
  for (const entry of await readdir(path)) await giveAll(join(path, entry), owner);
}

async function copyTree(source: string, destination: string, skipped: string[]): Promise<void> {
  await cp(source, destination, {
    recursive: true,
    // Links are copied as links, with their text unchanged (relative links stay relative).
    verbatimSymlinks: true,
    errorOnExist: false,
    filter: async (from) => {
      const stats = await lstat(from);
      const keep = stats.isSymbolicLink() ? await linkStaysInside(from, source) : stats.isFile() || stats.isDirectory();
      if (!keep) skipped.push(relative(source, from));
      return keep;
    },
  });
}

async function linkStaysInside(link: string, tree: string): Promise<boolean> {
  // An absolute link would point from the copy back into the original tree (or anywhere else).
  if (isAbsolute(await readlink(link))) return false;
  // Judged where the kernel would land (a chain d/up -> .., d/l -> up/../x leaves), even if dangling.
  const target = await resolvePhysically(link);
  return target === tree || target.startsWith(tree + sep);
}

/** rm -rf that also removes directories a command made read-only. */
async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (error) {
    if (errorCode(error) !== 'EACCES' && errorCode(error) !== 'EPERM') throw error;
    await makeWritable(path);
    await rm(path, { recursive: true, force: true });
  }
}

function removeTreeNow(path: string): void {
  try {
    // Retries: a process killed a moment ago may still be creating files in it.
    rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A directory a command made read-only stays: a forced exit does not stop to change modes.
  }
}

async function makeWritable(path: string): Promise<void> {
  const stats = await lstat(path);
  if (!stats.isDirectory()) return;
  await chmod(path, stats.mode | 0o700);
  for (const entry of await readdir(path)) await makeWritable(join(path, entry));
}
