// The concurrency kept within `ulimit -n`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitConcurrency, openFileLimit, promptsWithinFds } from '@hermes-datagen/generate/internal/fdBudget.js';
import { REPO_ROOT, tempDir, writeFiles } from '../util/cli.js';

describe('the file descriptor budget', () => {
  it("reads the process's soft limit on open files, as ulimit -n set it", () => {
    const module = JSON.stringify(join(REPO_ROOT, 'packages/generate/dist/fdBudget.js'));
    const script = `import { openFileLimit } from ${module}; process.stdout.write(String(openFileLimit()));`;
    const child = spawnSync('/bin/bash', ['-c', 'ulimit -n 300 && exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: 'utf8' });
    expect(child.stdout).toBe('300');
  });

  it('has no limit where the system says none (or gives no /proc)', () => {
    const dir = tempDir();
    writeFiles(dir, {
      limits:
        'Limit                     Soft Limit           Hard Limit           Units\nMax open files            unlimited            unlimited            files\n',
    });
    expect(openFileLimit(join(dir, 'limits'))).toBeUndefined();
    expect(openFileLimit(join(dir, 'missing'))).toBeUndefined();
  });

  it('keeps what fits, and lowers what does not with a warning that says why and what to do', () => {
    expect(fitConcurrency(32, 20_000)).toEqual({ concurrency: 32 });
    expect(fitConcurrency(32, undefined)).toEqual({ concurrency: 32 });
    const fitted = fitConcurrency(256, 256);
    expect(fitted.concurrency).toBe(promptsWithinFds(256));
    expect(fitted.concurrency).toBeLessThan(256);
    expect(fitted.warning).toMatch(
      /256 prompts at once need about \d+ open files and this process may open 256 \(ulimit -n\): at most \d+ run at once; raise ulimit -n/,
    );
    expect(promptsWithinFds(10)).toBe(1);
  });
});
