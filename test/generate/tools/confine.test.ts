import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { confinePath } from '@hermes-datagen/generate/internal/tools/confine.js';
import { ToolError } from '@hermes-datagen/generate/internal/tools/toolError.js';

describe('confinePath', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await realpath(await mkdtemp(join(tmpdir(), 'hermes-confine-')));
    await mkdir(join(ws, 'src'));
    await writeFile(join(ws, 'src', 'a.txt'), 'a');
  });
  afterEach(async () => {
    await rm(ws, { recursive: true, force: true });
  });

  const refused = async (requested: string, options = {}): Promise<void> => {
    const attempt = confinePath(ws, requested, options);
    await expect(attempt).rejects.toBeInstanceOf(ToolError);
    await expect(attempt).rejects.toThrow(/path escapes the workspace/);
  };

  it('resolves relative paths, existing or not, inside the workspace', async () => {
    expect(await confinePath(ws, 'src/a.txt')).toEqual({ absolute: join(ws, 'src/a.txt'), relative: 'src/a.txt' });
    expect(await confinePath(ws, 'new/dir/file.py')).toEqual({ absolute: join(ws, 'new/dir/file.py'), relative: 'new/dir/file.py' });
    expect(await confinePath(ws, 'src/../b.txt')).toEqual({ absolute: join(ws, 'b.txt'), relative: 'b.txt' });
    expect((await confinePath(ws, '.')).relative).toBe('.');
  });

  it('refuses .. segments that leave the workspace', async () => {
    await refused('../outside.txt');
    await refused('src/../../outside.txt');
    await refused('..');
  });

  it('allows absolute paths inside the workspace and refuses those outside', async () => {
    expect((await confinePath(ws, join(ws, 'src/a.txt'))).relative).toBe('src/a.txt');
    await refused('/etc/passwd');
    await refused('/tmp');
  });

  it('accepts the workspace reached through a symlinked alias', async () => {
    const alias = `${ws}-alias`;
    await symlink(ws, alias);
    try {
      expect((await confinePath(alias, 'src/a.txt')).absolute).toBe(join(ws, 'src/a.txt'));
      expect((await confinePath(ws, join(alias, 'src/a.txt'))).relative).toBe('src/a.txt');
    } finally {
      await rm(alias);
    }
  });

  it('refuses a symlink to a file outside', async () => {
    await symlink('/etc/passwd', join(ws, 'passwd'));
    await refused('passwd');
  });

  it('refuses reads and writes under a symlinked directory that points outside', async () => {
    await symlink('/etc', join(ws, 'etc'));
    await refused('etc/passwd');
    await refused('etc/not-yet-there/new.conf');
  });

  it('refuses writes through a dangling symlink whose target is outside', async () => {
    await symlink('/nonexistent-hermes-dir/file', join(ws, 'dangling'));
    await symlink('../../nonexistent-hermes-dir', join(ws, 'src', 'relative-dangling'));
    await refused('dangling');
    await refused('dangling/below');
    await refused('src/relative-dangling/x');
  });

  it("resolves .. after a link from the link's target, as the kernel does", async () => {
    await mkdir(join(ws, 'd'));
    await symlink('..', join(ws, 'd', 'up'));
    await symlink('up/../escape.txt', join(ws, 'd', 'chained'));
    await symlink('up/src/a.txt', join(ws, 'd', 'chained-inside'));
    await refused('d/chained');
    await refused('d/up/../escape.txt');
    expect((await confinePath(ws, 'd/chained-inside')).relative).toBe('src/a.txt');
  });

  it('follows symlinks that stay inside', async () => {
    await symlink('src', join(ws, 'lib'));
    await symlink('src/missing.txt', join(ws, 'later'));
    expect((await confinePath(ws, 'lib/a.txt')).relative).toBe('src/a.txt');
    expect((await confinePath(ws, 'later')).relative).toBe('src/missing.txt');
  });

  it('reports a link loop as a tool error', async () => {
    await symlink('loop-b', join(ws, 'loop-a'));
    await symlink('loop-a', join(ws, 'loop-b'));
    await expect(confinePath(ws, 'loop-a/x')).rejects.toThrow(/symbolic links/);
  });

  it('maps the sandbox mount point onto the workspace only when asked', async () => {
    expect((await confinePath(ws, '/workspace/src/a.txt', { containerRoot: '/workspace' })).relative).toBe('src/a.txt');
    expect((await confinePath(ws, '/workspace', { containerRoot: '/workspace' })).relative).toBe('.');
    await refused('/workspace/../etc/passwd', { containerRoot: '/workspace' });
    await refused('/workspace/src/a.txt');
  });

  it('refuses empty paths', async () => {
    await expect(confinePath(ws, ' ')).rejects.toThrow(/path is empty/);
  });
});
