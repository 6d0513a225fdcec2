// Every bin of the toolkit answers --help and --version, and the CLIs not built yet say so (exit 2).
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

const NOT_BUILT = ['hermes-to-atropos'];

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

  for (const bin of NOT_BUILT) {
    const pkg = bin.replace('hermes-', '');
    it(`${bin} is not built yet: it says so and exits 2 without touching its input`, async () => {
      const res = await runProcess(binPath(pkg, bin), [], { input: '{"prompt_index":0}\n' });
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(`${bin}: error: ${bin} is not built yet; it arrives with its own issue (see the README)\n`);
    });
  }
});
