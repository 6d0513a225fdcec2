import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeCodeTool } from '@hermes-datagen/generate/internal/tools/executeCode.js';
import type { CommandResult, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';
import { testWorkspace, type TestWorkspace } from './context.js';

describe('execute_code', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await testWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const run = (language: string, code: string, ctx: ToolContext = ws.ctx): Promise<CommandResult> =>
    executeCodeTool.run({ language, code }, ctx) as Promise<CommandResult>;

  it('runs python3 in the workspace', async () => {
    const code = "import os\nopen('made.txt', 'w').write('by python')\nprint(os.getcwd())\nprint(sum(range(10)))\n";
    expect(await run('python', code)).toEqual({ output: `${ws.dir}\n45`, exit_code: 0, error: null });
    expect(await readFile(join(ws.dir, 'made.txt'), 'utf8')).toBe('by python');
  });

  it('runs javascript with node in the workspace', async () => {
    const code = "require('fs').writeFileSync('made.txt', 'by node');\nconsole.log(process.cwd());\nconsole.log([1, 2, 3].map((n) => n * 2).join(','));";
    expect(await run('javascript', code)).toEqual({ output: `${ws.dir}\n2,4,6`, exit_code: 0, error: null });
    expect(await readFile(join(ws.dir, 'made.txt'), 'utf8')).toBe('by node');
  });

  it('reports a failing program through its output and exit code, not as an error', async () => {
    const result = await run('python', "raise ValueError('bad input')");
    expect(result.exit_code).toBe(1);
    expect(result.error).toBeNull();
    expect(result.output).toContain('ValueError: bad input');
    expect(await run('js', 'process.exit(4)')).toEqual({ output: '', exit_code: 4, error: null });
  });

  it('runs programs larger than one command-line argument may be', async () => {
    const code = `data = "${'a'.repeat(300_000)}"\nprint(len(data))`;
    expect(await run('python3', code)).toEqual({ output: '300000', exit_code: 0, error: null });
  });

  it('kills a program that runs past the timeout', async () => {
    const result = await run('node', 'for (;;) {}', { ...ws.ctx, timeoutMs: 800 });
    expect(result.error).toMatch(/^timed out after 0\.8 s/);
  });

  it('refuses an unsupported language', async () => {
    await expect(run('ruby', 'puts 1')).rejects.toThrow('language "ruby" is not supported; use "python" or "javascript"');
    await expect(run('constructor', '1')).rejects.toThrow(/not supported/);
  });
});
