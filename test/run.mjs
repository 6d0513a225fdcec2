// Runs the whole suite and prints the closing line the CI reads: `N passed, N failed`.
// vitest's own summary is not one the CI recognises, so the line comes from its JSON report.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const report = `${root}.vitest.json`;
rmSync(report, { force: true });
const run = spawnSync(
  process.execPath,
  [
    `${root}node_modules/vitest/vitest.mjs`,
    'run',
    '--config',
    'test/vitest.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit' },
);
let passed = 0;
let failed = 0;
try {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  passed = j.numPassedTests;
  failed = j.numFailedTests + (j.numRuntimeErrorTestSuites ?? 0) + (j.numFailedTestSuites && !j.numFailedTests ? j.numFailedTestSuites : 0);
} catch {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
