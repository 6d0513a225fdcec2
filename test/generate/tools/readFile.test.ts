import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool } from '@hermes-datagen/generate/internal/tools/readFile.js';
import { executeTool } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { testWorkspace, type TestWorkspace } from './context.js';

describe('read_file', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const read = (args: Record<string, unknown>): Promise<unknown> => readFileTool.run(args, ws.ctx);
  const readJson = async (args: Record<string, unknown>): Promise<unknown> => JSON.parse(await executeTool('read_file', args, ws.ctx));

  it("returns numbered lines in upstream's shape", async () => {
    await writeFile(join(ws.dir, 'hello.py'), "print('hi')\n");
    expect(await executeTool('read_file', { path: 'hello.py' }, ws.ctx)).toBe('{"content":"     1|print(\'hi\')\\n","total_lines":1}');
  });

  it('reads a window from offset and says where to continue', async () => {
    await writeFile(join(ws.dir, 'n.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    expect(await read({ path: 'n.txt', offset: 3, limit: 2 })).toEqual({ content: '     3|line 3\n     4|line 4\n', total_lines: 10, next_offset: 5 });
    expect(await read({ path: 'n.txt', offset: '9' })).toEqual({ content: '     9|line 9\n    10|line 10\n', total_lines: 10 });
    expect(await readJson({ path: 'n.txt', offset: 11 })).toEqual({ error: 'offset 11 is past the end of n.txt, which has 10 lines' });
  });

  it('stops at the output budget and cuts very long lines', async () => {
    await writeFile(join(ws.dir, 'long.txt'), `${'x'.repeat(5000)}\n${'y'.repeat(50)}\n${'z'.repeat(50)}\n`);
    const result = (await readFileTool.run({ path: 'long.txt' }, { ...ws.ctx, maxOutputBytes: 2100 })) as { content: string; next_offset: number };
    expect(result.content).toMatch(/^ {5}1\|x{2000}… \[line cut at 2000 of 5000 characters\]\n$/);
    expect(result.next_offset).toBe(2);
  });

  it('reads an empty file', async () => {
    await writeFile(join(ws.dir, 'empty'), '');
    expect(await read({ path: 'empty' })).toEqual({ content: '', total_lines: 0 });
  });

  it('answers missing files, directories and binaries with errors that say what to do', async () => {
    await mkdir(join(ws.dir, 'dir'));
    await writeFile(join(ws.dir, 'blob.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect(await readJson({ path: 'missing.txt' })).toEqual({ error: 'file not found: missing.txt; use search_files with target "files" to find it' });
    expect(await readJson({ path: 'dir' })).toEqual({ error: 'dir is a directory, not a file; list it with terminal (ls) or search_files' });
    expect(await readJson({ path: 'blob.bin' })).toEqual({ error: 'blob.bin looks like a binary file; inspect it with terminal (file, xxd | head)' });
    expect(await readJson({})).toEqual({ error: 'missing required argument "path" (a string)' });
  });

  it('refuses every way out of the workspace', async () => {
    await symlink('/etc/passwd', join(ws.dir, 'passwd-link'));
    await symlink('/etc', join(ws.dir, 'etc-link'));
    for (const path of ['../outside.txt', 'a/../../outside.txt', '/etc/passwd', 'passwd-link', 'etc-link/passwd']) {
      const result = (await readJson({ path })) as { error: string };
      expect(result.error, path).toMatch(/^path escapes the workspace: /);
      expect(result.error).not.toContain('root:');
    }
  });
});
