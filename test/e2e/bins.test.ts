// Every bin of the toolkit answers --help and --version; in a checkout that was never built (or after
// `make clean`) each says so and exits 2, instead of Node's stack trace for a missing module.
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, REPO_ROOT, runProcess, tempDir } from '../util/cli.js';

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
      // Each of its own options sits in a group that says what it is for: the generic "Options:" holds
      // only the ones every CLI has.
      const generic = /^Options:\n((?:.+\n)*)/m.exec(help.stdout)?.[1] ?? '';
      expect(generic.split('\n').filter((line) => line !== '' && !/--(color|version|help)\b/.test(line))).toEqual([]);
    });
  }

  it("hermes-testkit --help shows serve's options and only the exit codes it can give", async () => {
    const help = await runProcess(binPath('testkit', 'hermes-testkit'), ['--help']);
    expect(help.stdout).toMatch(/^Serve options:\n(?:.+\n)*\s+--port\s/m);
    const codes = [...(/^Exit codes:\n((?:.+\n?)*)/m.exec(help.stdout)?.[1] ?? '').matchAll(/^\s+(\d+)\s/gm)].map((m) => m[1]);
    expect(codes).toEqual(['0', '2', '70', '130']);
  });

  it('in a checkout without build output, each bin says "not built: run `make build`" and exits 2', async () => {
    // The packages as a clone has them before `make build`: their bin scripts and manifests, linked into
    // node_modules as npm's workspaces are, and no dist/.
    const checkout = tempDir();
    mkdirSync(join(checkout, 'node_modules', '@hermes-datagen'), { recursive: true });
    for (const pkg of ['core', ...BINS.map(([name]) => name)]) {
      const dir = join(checkout, 'packages', pkg);
      cpSync(join(REPO_ROOT, 'packages', pkg, 'package.json'), join(dir, 'package.json'));
      cpSync(join(REPO_ROOT, 'packages', pkg, 'bin'), join(dir, 'bin'), { recursive: true });
      symlinkSync(dir, join(checkout, 'node_modules', '@hermes-datagen', pkg));
    }
    for (const [pkg, bin] of BINS) {
      const res = await runProcess(join(checkout, 'packages', pkg, 'bin', `${bin}.js`), ['--help']);
      expect(res.stderr).toBe(`${bin}: not built: run \`make build\` (${join(checkout, 'packages', pkg, 'dist', 'main.js')} is missing)\n`);
      expect(res.stdout).toBe('');
      expect(res.code).toBe(2);
    }
  });
});
