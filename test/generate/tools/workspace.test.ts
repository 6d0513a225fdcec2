import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTool } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { createWorkspace, defaultWorkspaceRoot, removeWorkspaceRoot, WorkspaceError } from '@hermes-datagen/generate/internal/tools/workspace.js';
import { writeFileTool } from '@hermes-datagen/generate/internal/tools/writeFile.js';
import { testWorkspace } from './context.js';

describe('prompt workspaces', () => {
  let scratch: string;
  let root: string;
  let userDir: string;
  beforeEach(async () => {
    scratch = await realpath(await mkdtemp(join(tmpdir(), 'hermes-workspace-test-')));
    root = join(scratch, 'root');
    userDir = join(scratch, 'user-project');
    await mkdir(join(userDir, 'src'), { recursive: true });
    await writeFile(join(userDir, 'src', 'main.py'), 'print("original")\n');
    await writeFile(join(userDir, 'run.sh'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
  });
  afterEach(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('creates a fresh, empty directory per prompt under the root', async () => {
    const first = await createWorkspace({ root });
    const second = await createWorkspace({ root });
    expect(first.path).not.toBe(second.path);
    expect(first.path.startsWith(`${root}/prompt-`)).toBe(true);
    expect(await readdir(first.path)).toEqual([]);
    expect(first.skipped).toEqual([]);
    await first.cleanup();
    await expect(stat(first.path)).rejects.toThrow(/ENOENT/);
    expect((await stat(second.path)).isDirectory()).toBe(true);
  });

  it("refuses a row's cwd outside the cwd root, by .., by a link that leads out, or a kernel directory; takes one inside", async () => {
    await symlink(scratch, join(userDir, 'up'));
    for (const cwd of [scratch, join(userDir, '..'), join(userDir, 'up'), '/proc/self', '/etc']) {
      await expect(createWorkspace({ root, copyFrom: cwd, cwdRoot: userDir }), cwd).rejects.toThrow(
        new WorkspaceError(
          `the row's cwd "${cwd}" is outside ${userDir}, the directory rows' cwd must lie under (--cwd-root, default: the dataset file's directory); move the directory there or pass --cwd-root`,
        ),
      );
    }
    const inside = await createWorkspace({ root, copyFrom: join(userDir, 'src'), cwdRoot: userDir });
    expect(await readdir(inside.path)).toEqual(['main.py']);
  });

  it('gives the workspace and its copy to the sandbox user when tools run as one', async () => {
    // Only root can give files away; another user's run gives them to itself, which chown allows.
    const uid = process.getuid?.() === 0 ? 65534 : (process.getuid?.() ?? 0);
    const owner = { uid, gid: process.getuid?.() === 0 ? 65534 : (process.getgid?.() ?? 0) };
    const workspace = await createWorkspace({ root, copyFrom: userDir, owner });
    for (const path of [workspace.path, join(workspace.path, 'src'), join(workspace.path, 'src', 'main.py')])
      expect((await lstat(path)).uid, path).toBe(owner.uid);
    // What the file tools write there belongs to it too.
    const ctx = (await testWorkspace({ workspace: workspace.path })).ctx;
    await executeTool(
      'write_file',
      { path: 'new/deep/file.txt', content: 'x' },
      { ...ctx, processes: Object.create(ctx.processes, { owner: { value: owner } }) as typeof ctx.processes },
      [writeFileTool],
    );
    for (const path of ['new', 'new/deep', 'new/deep/file.txt']) expect((await lstat(join(workspace.path, path))).uid, path).toBe(owner.uid);
  });

  it('defaults to a per-process root in the temp directory', () => {
    expect(defaultWorkspaceRoot()).toBe(join(tmpdir(), `hermes-generate-${process.pid}`));
  });

  it("copies the row's cwd in, so the agent never changes the user's files", async () => {
    const ws = await createWorkspace({ root, copyFrom: userDir });
    expect(await readFile(join(ws.path, 'src', 'main.py'), 'utf8')).toBe('print("original")\n');
    expect((await stat(join(ws.path, 'run.sh'))).mode & 0o111).not.toBe(0);
    const { ctx } = await testWorkspace({ workspace: ws.path });
    const ran = JSON.parse(await executeTool('terminal', { command: './run.sh && rm -rf src && echo changed > new.txt' }, ctx));
    expect(ran).toEqual({ output: 'ran', exit_code: 0, error: null });
    await executeTool('write_file', { path: 'run.sh', content: 'overwritten' }, ctx);
    expect(await readFile(join(userDir, 'src', 'main.py'), 'utf8')).toBe('print("original")\n');
    expect(await readFile(join(userDir, 'run.sh'), 'utf8')).toBe('#!/bin/sh\necho ran\n');
    await expect(stat(join(userDir, 'new.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('copies links that stay inside the tree and leaves out those that lead out', async () => {
    await mkdir(join(userDir, 'd'));
    await symlink('src/main.py', join(userDir, 'inside-link'));
    await symlink('src/not-yet.txt', join(userDir, 'dangling-inside'));
    await symlink(join(userDir, 'src'), join(userDir, 'absolute-link'));
    await symlink('../../secrets', join(userDir, 'src', 'escaping-link'));
    await symlink('..', join(userDir, 'd', 'up'));
    await symlink('up/../outside.txt', join(userDir, 'd', 'chained-escape'));
    const fifo = join(userDir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const ws = await createWorkspace({ root, copyFrom: userDir });
    expect(await readlink(join(ws.path, 'inside-link'))).toBe('src/main.py');
    expect(await readFile(join(ws.path, 'inside-link'), 'utf8')).toBe('print("original")\n');
    expect(await readlink(join(ws.path, 'dangling-inside'))).toBe('src/not-yet.txt');
    expect(await readlink(join(ws.path, 'd', 'up'))).toBe('..');
    expect([...ws.skipped].sort()).toEqual(['absolute-link', 'd/chained-escape', 'pipe', 'src/escaping-link']);
    for (const left of ws.skipped) await expect(lstat(join(ws.path, left))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a cwd that is not an existing directory, creating nothing', async () => {
    await expect(createWorkspace({ root, copyFrom: join(scratch, 'missing') })).rejects.toThrow(WorkspaceError);
    await expect(createWorkspace({ root, copyFrom: join(userDir, 'run.sh') })).rejects.toThrow(
      `the row's cwd "${join(userDir, 'run.sh')}" is not an existing directory; fix the cwd field or leave it out`,
    );
    await expect(stat(root)).rejects.toThrow(/ENOENT/);
  });

  it('cleans up read-only directories a command left, and the whole root at the end', async () => {
    const ws = await createWorkspace({ root });
    await mkdir(join(ws.path, 'locked'));
    await writeFile(join(ws.path, 'locked', 'file'), 'x');
    await chmod(join(ws.path, 'locked'), 0o500);
    await ws.cleanup();
    await expect(stat(ws.path)).rejects.toThrow(/ENOENT/);
    await createWorkspace({ root });
    await removeWorkspaceRoot(root);
    await expect(stat(root)).rejects.toThrow(/ENOENT/);
  });
});
