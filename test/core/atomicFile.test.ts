import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeJsonAtomic } from '@hermes-datagen/core';
import { tempDir, writeFiles } from '../util/cli.js';

describe('atomic files', () => {
  it('replaces the target whole and leaves no temp file', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'checkpoint.json': 'old' });
    await writeJsonAtomic(join(dir, 'checkpoint.json'), { done: { a: 1 } });
    expect(readFileSync(join(dir, 'checkpoint.json'), 'utf8')).toBe('{\n  "done": {\n    "a": 1\n  }\n}\n');
    expect(readdirSync(dir)).toEqual(['checkpoint.json']);
  });

  it('fails without touching anything when the directory is missing', async () => {
    const dir = tempDir();
    await expect(writeFileAtomic(join(dir, 'no', 'x.json'), '{}')).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
