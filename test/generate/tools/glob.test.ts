import { describe, expect, it } from 'vitest';
import { globToRegExp, matchesGlob } from '@hermes-datagen/generate/internal/tools/glob.js';

const matches = (path: string, glob: string): boolean => matchesGlob(path, globToRegExp(glob), glob.includes('/'));

describe('glob', () => {
  it('matches file names when the glob has no slash', () => {
    expect(matches('src/deep/app.py', '*.py')).toBe(true);
    expect(matches('src/deep/app.pyc', '*.py')).toBe(false);
    expect(matches('a.ts', '?.ts')).toBe(true);
    expect(matches('ab.ts', '?.ts')).toBe(false);
    expect(matches('x/main.tsx', '*.{ts,tsx}')).toBe(true);
    expect(matches('x/main.js', '*.{ts,tsx}')).toBe(false);
    expect(matches('file1.txt', 'file[0-9].txt')).toBe(true);
    expect(matches('filea.txt', 'file[!0-9].txt')).toBe(true);
    expect(matches('file1.txt', 'file[!0-9].txt')).toBe(false);
  });

  it('matches relative paths when the glob has a slash', () => {
    expect(matches('src/app.py', 'src/*.py')).toBe(true);
    expect(matches('src/deep/app.py', 'src/*.py')).toBe(false);
    expect(matches('src/deep/app.py', 'src/**/*.py')).toBe(true);
    expect(matches('src/app.py', 'src/**/*.py')).toBe(true);
    expect(matches('tests/a/b/test_x.py', '**/test_*.py')).toBe(true);
  });

  it('takes regular-expression characters literally', () => {
    expect(matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matches('aab1.txt', 'a+b(1).txt')).toBe(false);
    expect(matches('x.txt', '.txt')).toBe(false);
  });

  it('refuses an unclosed brace', () => {
    expect(() => globToRegExp('*.{ts,js')).toThrow(/unclosed/);
  });
});
