// The option files every CLI reads go through core's one reader: the same fault gives the same exit
// code and the same kind of message in every bin (docs/exit-codes.md).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, runProcess, tempDir, writeFiles } from '../util/cli.js';

const REGISTRY_BINS = [
  ['generate', 'hermes-generate'],
  ['filter', 'hermes-filter'],
  ['stats', 'hermes-stats'],
] as const;

describe('--tools-registry, declared once in core', () => {
  it.each(REGISTRY_BINS)('%s lists it in --help with the same description', async (pkg, bin) => {
    const help = await runProcess(binPath(pkg, bin), ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--tools-registry\s+tool registry JSON \(schemas\/tool-registry\.schema\.json\) instead of the default one/);
  });

  // generate reads it through the same loadToolRegistry; its other checks come first, so it is not run here.
  it.each(REGISTRY_BINS.slice(1))('%s refuses a missing, a broken and a malformed registry with exit 2, naming the file', async (pkg, bin) => {
    const dir = tempDir();
    writeFiles(dir, { 'broken.json': '{"tools": ', 'odd.json': '{"tool": {}}' });
    const expected = {
      'absent.json': 'cannot read --tools-registry absent.json (ENOENT): check the path; without --tools-registry the default registry is used',
      'broken.json': '--tools-registry broken.json: not valid JSON: ',
      'odd.json': '--tools-registry odd.json: ',
    };
    for (const [file, message] of Object.entries(expected)) {
      const res = await runProcess(binPath(pkg, bin), ['--tools-registry', file], { cwd: dir });
      expect(res.code, `${bin} --tools-registry ${file}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toContain(message);
      expect(res.stdout).toBe('');
    }
  });
});

describe('other files named on the command line', () => {
  it('hermes-testkit --script: missing or broken exits 2', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'bad.json': '{"sequences": [' });
    const missing = await runProcess(binPath('testkit', 'hermes-testkit'), ['serve', '--script', 'absent.json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read --script absent.json (ENOENT)');
    const broken = await runProcess(binPath('testkit', 'hermes-testkit'), ['serve', '--script', 'bad.json'], { cwd: dir });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('--script bad.json: not valid JSON: ');
  });

  it('hermes-stats merge: a summary operand that is missing, a directory or broken exits 3', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'broken.json': '{' });
    mkdirSync(join(dir, 'folder'));
    const expected = {
      'absent.json': 'cannot read summary absent.json (ENOENT)',
      folder: 'cannot read summary folder (EISDIR)',
      'broken.json': 'summary broken.json: not valid JSON: ',
    };
    for (const [file, message] of Object.entries(expected)) {
      const res = await runProcess(binPath('stats', 'hermes-stats'), ['merge', file], { cwd: dir });
      expect(res.code).toBe(3);
      expect(res.stderr).toContain(message);
    }
  });
});
