// Every bin of the toolkit answers --help and --version.
import { describe, expect, it } from 'vitest';
import { binPath, runProcess } from '../util/cli.js';

const BINS = [
  ['generate', 'hermes-generate'],
  ['filter', 'hermes-filter'],
  ['compress', 'hermes-compress'],
  ['stats', 'hermes-stats'],
  ['verify', 'hermes-verify'],
  ['to-atropos', 'hermes-to-atropos'],
  ['testkit', 'hermes-testkit'],
] as const;

describe('the bins', () => {
  for (const [pkg, bin] of BINS) {
    it(`${bin} --help names it, lists the exit codes and exits 0; --version prints the version`, async () => {
      const help = await runProcess(binPath(pkg, bin), ['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout.startsWith(`${bin}: `)).toBe(true);
      expect(help.stdout).toContain('Exit codes:');
      expect(help.stderr).toBe('');
      const version = await runProcess(binPath(pkg, bin), ['--version']);
      expect(version.code).toBe(0);
      expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    });
  }
});
