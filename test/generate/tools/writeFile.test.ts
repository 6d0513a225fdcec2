import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTool } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { testWorkspace, type TestWorkspace } from './context.js';

describe('write_file', () => {
  let ws: TestWorkspace;
  let outside: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
    outside = await testWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
    await outside.cleanup();
  });

  const write = async (path: string, content: string): Promise<unknown> => JSON.parse(await executeTool('write_file', { path, content }, ws.ctx));

  it("writes a file and reports upstream's shape", async () => {
    expect(await executeTool('write_file', { path: 'hello.py', content: "print('hi')\n" }, ws.ctx)).toBe('{"bytes_written":12,"dirs_created":false}');
    expect(await readFile(join(ws.dir, 'hello.py'), 'utf8')).toBe("print('hi')\n");
  });

  it('creates missing directories, counts bytes not characters, and overwrites', async () => {
    expect(await write('a/b/c.txt', 'héllo')).toEqual({ bytes_written: 6, dirs_created: true });
    expect(await write('a/b/c.txt', 'new')).toEqual({ bytes_written: 3, dirs_created: false });
    expect(await readFile(join(ws.dir, 'a/b/c.txt'), 'utf8')).toBe('new');
  });

  it('round-trips with read_file', async () => {
    await write('notes/todo.md', 'one\ntwo\n');
    expect(JSON.parse(await executeTool('read_file', { path: 'notes/todo.md' }, ws.ctx))).toEqual({ content: '     1|one\n     2|two\n', total_lines: 2 });
  });

  it('refuses paths outside the workspace and writes nothing there', async () => {
    await symlink(outside.dir, join(ws.dir, 'out-link'));
    await symlink(join(outside.dir, 'dangling-target.txt'), join(ws.dir, 'dangling'));
    for (const path of ['../escape.txt', join(outside.dir, 'abs.txt'), 'out-link/new.txt', 'out-link/deeper/new.txt', 'dangling']) {
      expect(((await write(path, 'pwned')) as { error: string }).error, path).toMatch(/^path escapes the workspace: /);
    }
    await expect(lstat(join(outside.dir, 'new.txt'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(join(outside.dir, 'deeper'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(join(outside.dir, 'dangling-target.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a symlink a command created to leave the workspace', async () => {
    const made = JSON.parse(await executeTool('terminal', { command: `ln -s ${outside.dir} sneaky && echo made` }, ws.ctx));
    expect(made.output).toBe('made');
    expect(((await write('sneaky/x.txt', 'pwned')) as { error: string }).error).toMatch(/^path escapes the workspace/);
    await expect(lstat(join(outside.dir, 'x.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('answers writing onto a directory or below a file with an error', async () => {
    await mkdir(join(ws.dir, 'dir'));
    await writeFile(join(ws.dir, 'file.txt'), 'x');
    expect(await write('dir', 'x')).toEqual({ error: 'dir is a directory, not a file; list it with terminal (ls) or search_files' });
    expect(await write('file.txt/child', 'x')).toEqual({ error: 'a parent of file.txt/child is a file, not a directory' });
    expect(JSON.parse(await executeTool('write_file', { path: 'x.txt' }, ws.ctx))).toEqual({ error: 'missing required argument "content" (a string)' });
  });
});
