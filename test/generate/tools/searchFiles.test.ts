import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTool } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { testWorkspace, type TestWorkspace } from './context.js';

describe('search_files', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
    await mkdir(join(ws.dir, 'src/util'), { recursive: true });
    await mkdir(join(ws.dir, '.git'));
    await writeFile(join(ws.dir, 'src/app.py'), 'import os\n\ndef main():\n    return helper(42)\n');
    await writeFile(join(ws.dir, 'src/util/helper.py'), 'def helper(n):\n    return n * 2  # helper\n');
    await writeFile(join(ws.dir, 'src/util/helper.ts'), 'export const helper = (n: number) => n * 2;\n');
    await writeFile(join(ws.dir, 'README.md'), '# demo\nCall helper() from main.\n');
    await writeFile(join(ws.dir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x68, 0x65, 0x6c, 0x70, 0x65, 0x72]));
    await writeFile(join(ws.dir, '.git/config'), 'helper = hidden\n');
    await symlink('/etc', join(ws.dir, 'etc-link'));
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const search = async (args: Record<string, unknown>): Promise<unknown> => JSON.parse(await executeTool('search_files', args, ws.ctx));

  it('finds matching lines with path and line number, skipping binaries, .git and links', async () => {
    expect(await search({ pattern: 'helper' })).toEqual({
      matches: [
        { path: 'README.md', line: 2, text: 'Call helper() from main.' },
        { path: 'src/app.py', line: 4, text: 'return helper(42)' },
        { path: 'src/util/helper.py', line: 1, text: 'def helper(n):' },
        { path: 'src/util/helper.py', line: 2, text: 'return n * 2  # helper' },
        { path: 'src/util/helper.ts', line: 1, text: 'export const helper = (n: number) => n * 2;' },
      ],
      truncated: false,
    });
  });

  it('takes the pattern as a regular expression and narrows by path and file_glob', async () => {
    expect(await search({ pattern: '^def \\w+\\(n', path: 'src', file_glob: '*.py' })).toEqual({
      matches: [{ path: 'src/util/helper.py', line: 1, text: 'def helper(n):' }],
      truncated: false,
    });
    expect(await search({ pattern: 'n \\* 2', file_glob: '*.ts' })).toEqual({
      matches: [{ path: 'src/util/helper.ts', line: 1, text: 'export const helper = (n: number) => n * 2;' }],
      truncated: false,
    });
    expect(await search({ pattern: 'return', path: 'src/app.py' })).toEqual({
      matches: [{ path: 'src/app.py', line: 4, text: 'return helper(42)' }],
      truncated: false,
    });
  });

  it('finds files by name glob', async () => {
    expect(await search({ pattern: 'helper.*', target: 'files' })).toEqual({ files: ['src/util/helper.py', 'src/util/helper.ts'], truncated: false });
    expect(await search({ pattern: 'src/**/*.py', target: 'files' })).toEqual({ files: ['src/app.py', 'src/util/helper.py'], truncated: false });
    expect(await search({ pattern: '*.py', target: 'files', path: 'src/util' })).toEqual({ files: ['src/util/helper.py'], truncated: false });
  });

  it('bounds the results and says so', async () => {
    await writeFile(join(ws.dir, 'many.txt'), 'hit\n'.repeat(100));
    const result = (await search({ pattern: 'hit', limit: 3 })) as { matches: unknown[]; truncated: boolean; note: string };
    expect(result.matches).toHaveLength(3);
    expect(result.truncated).toBe(true);
    expect(result.note).toBe('more than 3 matches; narrow the pattern, path or file_glob');
  });

  it('names the files too large to search instead of answering as if nothing matched', async () => {
    await writeFile(join(ws.dir, 'big.log'), `${'x'.repeat(100)}\nneedle\n`.repeat(25_000));
    expect(await search({ pattern: 'needle' })).toEqual({
      matches: [],
      truncated: false,
      note: '1 file over 2 MiB not searched: big.log; read them in parts with read_file, or search them with grep in the terminal',
    });
    const limited = (await search({ pattern: 'helper', limit: 1 })) as { note: string };
    expect(limited.note).toBe(
      'more than 1 matches; narrow the pattern, path or file_glob; 1 file over 2 MiB not searched: big.log; read them in parts with read_file, or search them with grep in the terminal',
    );
  });

  it('answers a bad pattern, a missing path and an escaping path with errors', async () => {
    expect(await search({ pattern: '(unclosed' })).toMatchObject({ error: expect.stringMatching(/^invalid regular expression "\(unclosed": /) });
    expect(await search({ pattern: 'x', path: 'nope' })).toEqual({ error: 'path not found: nope' });
    expect(await search({ pattern: 'root', path: 'etc-link' })).toMatchObject({ error: expect.stringMatching(/^path escapes the workspace/) });
    expect(await search({ pattern: 'root', path: '/etc' })).toMatchObject({ error: expect.stringMatching(/^path escapes the workspace/) });
    expect(await search({ pattern: 'x', target: 'names' })).toEqual({ error: 'target must be "content" or "files", not "names"' });
  });
});
