import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ExitCode,
  HermesError,
  InputError,
  loadOptionFile,
  loadOptionFileIfPresent,
  optionFileError,
  parseOptionFile,
  UsageError,
  type OptionFile,
} from '@hermes-datagen/core';
import { tempDir } from '../util/cli.js';

function setup(files: Record<string, string>): string {
  const dir = tempDir('hermes-option-file-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function thrown(read: () => unknown): HermesError {
  try {
    read();
  } catch (err) {
    if (err instanceof HermesError) return err;
    throw err;
  }
  throw new Error('expected a HermesError, nothing was thrown');
}

describe('loadOptionFile', () => {
  it('reads a path relative to cwd and parses each format', () => {
    const dir = setup({
      'a.json': '{"x": [1, 2.5]}',
      'b.jsonl': '{"n": 1}\r\n\n  \n{"n": 2}\n',
      'c.yaml': 'x:\n  - 1\n  - two\n',
      'd.txt': 'plain\ntext',
    });
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'e.json'), '[]');
    const file = (path: string): OptionFile => ({ option: '--opt', path, cwd: dir });
    expect(loadOptionFile(file('a.json'), 'json')).toEqual({ x: [1, 2.5] });
    expect(loadOptionFile(file('b.jsonl'), 'jsonl')).toEqual([{ n: 1 }, { n: 2 }]);
    expect(loadOptionFile(file('c.yaml'), 'yaml')).toEqual({ x: [1, 'two'] });
    expect(loadOptionFile(file('a.json'), 'yaml')).toEqual({ x: [1, 2.5] });
    expect(loadOptionFile(file('d.txt'), 'text')).toBe('plain\ntext');
    expect(loadOptionFile(file('sub/e.json'), 'json')).toEqual([]);
    expect(loadOptionFile({ option: '--opt', path: join(dir, 'a.json'), cwd: '/nowhere' }, 'json')).toEqual({ x: [1, 2.5] });
  });

  it('drops a byte order mark at the start of the file, except for text', () => {
    const dir = setup({ 'bom.json': '\uFEFF{"a": 1}', 'bom.jsonl': '\uFEFF{"a": 1}\n{"a": 2}\n', 'bom.txt': '\uFEFFx' });
    expect(loadOptionFile({ option: '--opt', path: 'bom.json', cwd: dir }, 'json')).toEqual({ a: 1 });
    expect(loadOptionFile({ option: '--opt', path: 'bom.jsonl', cwd: dir }, 'jsonl')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(loadOptionFile({ option: '--opt', path: 'bom.txt', cwd: dir }, 'text')).toBe('\uFEFFx');
  });

  it('json-or-yaml parses a .json file as JSON (with JSON errors) and anything else as YAML', () => {
    const dir = setup({ 'c.JSON': '{"a": 1}', 'c.yml': 'a: 1', 'bad.json': 'a: 1' });
    expect(loadOptionFile({ option: '--config', path: 'c.JSON', cwd: dir }, 'json-or-yaml')).toEqual({ a: 1 });
    expect(loadOptionFile({ option: '--config', path: 'c.yml', cwd: dir }, 'json-or-yaml')).toEqual({ a: 1 });
    expect(thrown(() => loadOptionFile({ option: '--config', path: 'bad.json', cwd: dir }, 'json-or-yaml')).message).toMatch(
      /^--config bad\.json: not valid JSON: /,
    );
  });

  describe('a file named by an option: every fault is a usage error (exit 2) naming the option and the file', () => {
    it.each<[string, string, 'json' | 'yaml' | 'jsonl', RegExp]>([
      ['a missing file', 'absent.json', 'json', /^cannot read --opt absent\.json \(ENOENT\): check the path$/],
      ['a directory', 'folder', 'json', /^cannot read --opt folder \(EISDIR\): check the path$/],
      ['invalid JSON', 'bad.json', 'json', /^--opt bad\.json: not valid JSON: \S/],
      ['invalid YAML', 'bad.yaml', 'yaml', /^--opt bad\.yaml: not valid YAML: \S/],
      ['an invalid JSONL line, located by line number', 'bad.jsonl', 'jsonl', /^--opt bad\.jsonl:3: not valid JSON: \S/],
    ])('%s', (_name, path, format, message) => {
      const dir = setup({ 'bad.json': '{"a": ', 'bad.yaml': 'a: [1,\n', 'bad.jsonl': '{"a": 1}\n\n{"a": \n' });
      mkdirSync(join(dir, 'folder'));
      const error = thrown(() => loadOptionFile({ option: '--opt', path, cwd: dir }, format));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.exitCode).toBe(ExitCode.usage);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('\n');
    });
  });

  it('a file named by an operand (role input): the same faults are input errors (exit 3)', () => {
    const dir = setup({ 'bad.json': '{' });
    for (const path of ['absent.json', 'bad.json']) {
      const error = thrown(() => loadOptionFile({ option: 'summary', path, cwd: dir, role: 'input' }, 'json'));
      expect(error).toBeInstanceOf(InputError);
      expect(error.exitCode).toBe(ExitCode.inputData);
      expect(error.message).toContain(`summary ${path}`);
    }
  });

  it('appends the advice to every fault', () => {
    const dir = setup({ 'bad.json': '{' });
    const file = (path: string): OptionFile => ({ option: '--opt', path, cwd: dir, advice: 'leave it out to use the default' });
    expect(thrown(() => loadOptionFile(file('absent.json'), 'json')).message).toMatch(/: check the path; leave it out to use the default$/);
    expect(thrown(() => loadOptionFile(file('bad.json'), 'json')).message).toMatch(/^--opt bad\.json: not valid JSON: .*; leave it out to use the default$/);
    expect(optionFileError(file('ok.json'), 'no rules', { at: 'rules' }).message).toBe('--opt ok.json at rules: no rules; leave it out to use the default');
  });
});

describe('loadOptionFileIfPresent', () => {
  it('gives undefined for a missing file only; other faults still fail', () => {
    const dir = setup({ 'run.json': '{"a": 1}', 'bad.json': '{' });
    mkdirSync(join(dir, 'folder'));
    const file = (path: string): OptionFile => ({ option: 'run file', path, cwd: dir, role: 'input' });
    expect(loadOptionFileIfPresent(file('run.json'), 'json')).toEqual({ a: 1 });
    expect(loadOptionFileIfPresent(file('absent.json'), 'json')).toBeUndefined();
    expect(thrown(() => loadOptionFileIfPresent(file('bad.json'), 'json')).exitCode).toBe(ExitCode.inputData);
    expect(thrown(() => loadOptionFileIfPresent(file('folder'), 'json')).message).toMatch(/^cannot read run file folder \(EISDIR\)/);
  });
});

describe('optionFileError', () => {
  it('names the option, the file, the line or place, with the exit code of the role', () => {
    const option: OptionFile = { option: '--scores', path: 's.jsonl', cwd: '.' };
    const located = optionFileError(option, 'score must be a number', { line: 7 });
    expect(located).toBeInstanceOf(UsageError);
    expect(located.message).toBe('--scores s.jsonl:7: score must be a number');
    expect(optionFileError(option, 'empty', { at: '' }).message).toBe('--scores s.jsonl: empty');
    const input = optionFileError({ ...option, role: 'input' }, 'wrong shape', { at: '/runs/0' });
    expect(input).toBeInstanceOf(InputError);
    expect(input.message).toBe('--scores s.jsonl at /runs/0: wrong shape');
  });
});

describe('parseOptionFile', () => {
  it('parses text already read as loadOptionFile would', () => {
    const file: OptionFile = { option: '--opt', path: 'x.jsonl', cwd: '.' };
    expect(parseOptionFile(file, '1\n2\n', 'jsonl')).toEqual([1, 2]);
    expect(thrown(() => parseOptionFile(file, '1\nx\n', 'jsonl')).message).toMatch(/^--opt x\.jsonl:2: not valid JSON/);
  });
});
