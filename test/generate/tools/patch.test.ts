import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTool } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { testWorkspace, type TestWorkspace } from './context.js';

describe('patch', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
    await writeFile(join(ws.dir, 'app.py'), 'x = 1\nprint(x)\nprint(x)\n');
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const patch = async (args: Record<string, unknown>): Promise<unknown> => JSON.parse(await executeTool('patch', { path: 'app.py', ...args }, ws.ctx));
  const content = (): Promise<string> => readFile(join(ws.dir, 'app.py'), 'utf8');

  it('replaces a unique occurrence and the file runs with the change', async () => {
    expect(await patch({ old_string: 'x = 1', new_string: 'x = 41 + 1' })).toEqual({ path: 'app.py', replacements: 1 });
    expect(await content()).toBe('x = 41 + 1\nprint(x)\nprint(x)\n');
    expect(JSON.parse(await executeTool('terminal', { command: 'python3 app.py' }, ws.ctx)).output).toBe('42\n42');
  });

  it('refuses an ambiguous old_string unless replace_all is set', async () => {
    expect(await patch({ old_string: 'print(x)', new_string: 'print(x * 2)' })).toEqual({
      error: 'old_string occurs 2 times in app.py; include more surrounding lines to make it unique, or set replace_all to true',
    });
    expect(await content()).toBe('x = 1\nprint(x)\nprint(x)\n');
    expect(await patch({ old_string: 'print(x)', new_string: 'print(x * 2)', replace_all: true })).toEqual({ path: 'app.py', replacements: 2 });
    expect(await content()).toBe('x = 1\nprint(x * 2)\nprint(x * 2)\n');
  });

  it('takes replacement text literally', async () => {
    await patch({ old_string: 'x = 1', new_string: "x = '$&$1'" });
    expect(await content()).toBe("x = '$&$1'\nprint(x)\nprint(x)\n");
  });

  it('answers a missing old_string, an empty one and a missing file with errors', async () => {
    expect(await patch({ old_string: 'y = 2', new_string: 'y = 3' })).toEqual({
      error: 'old_string was not found in app.py; read the file with read_file and copy the exact text, whitespace included',
    });
    expect(await patch({ old_string: '', new_string: 'y' })).toMatchObject({ error: expect.stringMatching(/^old_string is empty/) });
    expect(await patch({ path: 'nope.py', old_string: 'a', new_string: 'b' })).toEqual({
      error: 'file not found: nope.py; use search_files with target "files" to find it',
    });
  });

  it('refuses to patch outside the workspace', async () => {
    await symlink('/etc', join(ws.dir, 'etc'));
    expect(await patch({ path: 'etc/hostname', old_string: 'a', new_string: 'b' })).toMatchObject({
      error: expect.stringMatching(/^path escapes the workspace/),
    });
    expect(await patch({ path: '../x', old_string: 'a', new_string: 'b' })).toMatchObject({ error: expect.stringMatching(/^path escapes the workspace/) });
  });
});
