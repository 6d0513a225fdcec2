// The file tools on what is not a regular file: a named pipe (nobody writing to it, nobody reading
// it), a socket and a device node are refused without being opened blocking, so the call returns;
// search_files uses a linear-time engine, so a pattern that backtracks for minutes elsewhere answers
// at once, and a pattern RE2 cannot run (lookaround, backreferences) is refused with what to do.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTool } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { testWorkspace, type TestWorkspace } from './context.js';

describe('the file tools refuse what is not a regular file, at once', () => {
  let ws: TestWorkspace;
  let server: Server | undefined;
  beforeEach(async () => {
    ws = await testWorkspace();
    execFileSync('mkfifo', [join(ws.dir, 'pipe')]);
    // A character device like /dev/null (1, 3), inside the workspace.
    execFileSync('mknod', [join(ws.dir, 'null'), 'c', '1', '3']);
    server = createServer();
    await new Promise<void>((resolve) => server?.listen(join(ws.dir, 'sock'), resolve));
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await ws.cleanup();
  });

  const run = async (tool: string, args: Record<string, unknown>): Promise<unknown> => JSON.parse(await executeTool(tool, args, ws.ctx));

  it.each([
    ['pipe', 'a named pipe (FIFO)'],
    ['sock', 'a socket'],
    ['null', 'a device'],
  ])('%s: read_file, write_file and patch answer that it is %s', async (path, what) => {
    const refusal = { error: `${path} is ${what}, not a regular file; the file tools read and write regular files only (use terminal for anything else)` };
    expect(await run('read_file', { path })).toEqual(refusal);
    expect(await run('write_file', { path, content: 'x' })).toEqual(refusal);
    expect(await run('patch', { path, old_string: 'a', new_string: 'b' })).toEqual(refusal);
  });

  it('regular files still work, and a directory is still named as one', async () => {
    await writeFile(join(ws.dir, 'a.txt'), 'one\n');
    expect(await run('patch', { path: 'a.txt', old_string: 'one', new_string: 'two' })).toEqual({ path: 'a.txt', replacements: 1 });
    expect(await readFile(join(ws.dir, 'a.txt'), 'utf8')).toBe('two\n');
    expect(await run('read_file', { path: '.' })).toMatchObject({ error: expect.stringMatching(/is a directory/) });
  });
});

describe('search_files matches in linear time (RE2)', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });
  const search = async (args: Record<string, unknown>): Promise<unknown> => JSON.parse(await executeTool('search_files', args, ws.ctx));

  it('^(a+)+$ over 28 a and a b (minutes for a backtracking engine) answers, as do lines of 10,000 a', async () => {
    await writeFile(join(ws.dir, 'a.txt'), `${'a'.repeat(28)}b\n${'a'.repeat(28)}\n${'a'.repeat(9_999)}c\n`);
    expect(await search({ pattern: '^(a+)+$' })).toEqual({ matches: [{ path: 'a.txt', line: 2, text: 'a'.repeat(28) }], truncated: false });
    expect(await search({ pattern: '^(a|aa)+$', limit: 1 })).toEqual({ matches: [{ path: 'a.txt', line: 2, text: 'a'.repeat(28) }], truncated: false });
    expect(await search({ pattern: '(a*)*c' })).toMatchObject({ matches: [{ path: 'a.txt', line: 3 }] });
  });

  it('lookaround and backreferences, which RE2 cannot run, are refused with what to use instead', async () => {
    for (const pattern of ['(?=a)a', '(a)\\1'])
      expect(await search({ pattern })).toEqual({
        error: expect.stringMatching(/^invalid regular expression .*RE2 syntax: no lookaround or backreferences; search with grep -P/),
      });
  });
});
