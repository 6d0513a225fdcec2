// --env-file lines: what Node's parseEnv would misread silently is a located usage error instead.
import { describe, expect, it } from 'vitest';
import { UsageError } from '@hermes-datagen/core';
import { loadEnvFile } from '@hermes-datagen/core/internal/envFile.js';
import { tempDir, writeFiles } from '../util/cli.js';

function load(text: string): Readonly<Record<string, string>> {
  const dir = tempDir();
  writeFiles(dir, { '.env': text });
  return loadEnvFile('.env', dir).values;
}

describe('loadEnvFile', () => {
  it('reads NAME=value lines, export, comments, blank lines, CRLF and quoted values over several lines', () => {
    expect(load('# key\nA=1\r\nexport B = two\n\nC="multi\nline"\nD=\'x\' # note\nE=`q`\n')).toEqual({ A: '1', B: 'two', C: 'multi\nline', D: 'x', E: 'q' });
  });

  it.each<[string, number, RegExp]>([
    ['A=1\nHERMES_API_KEY sk-123\nB=2\n', 2, /not a NAME=value line/],
    ['A=1\n\njust some text\n', 3, /not a NAME=value line/],
    ['=value\n', 1, /not a NAME=value line/],
    ['A=1\nB="never closed\nC=3\n', 2, /the value opened with " is never closed/],
  ])('%j: a usage error at line %i', (text, line, problem) => {
    expect(() => load(text)).toThrow(UsageError);
    expect(() => load(text)).toThrow(new RegExp(`^--env-file \\.env:${line}: ${problem.source}`));
  });
});
