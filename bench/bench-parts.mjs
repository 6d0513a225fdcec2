// The main of a bench script made of parts against the scripted endpoint (generate-run.mjs,
// generate-quota.mjs): each part runs in turn in one scratch directory and gives its report fields,
// its lines and its missed targets. Every part run: the results file is written; fewer (a trial of
// one part): it is left as it was, since bench/results-md.mjs reads every part from it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, shownPath, writeResults } from './cli-args.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TESTKIT = `${ROOT}packages/testkit/dist/index.js`;

/**
 * Runs `parts` (each `(startScriptedEndpoint, dir) => { report, lines, misses }`) and prints
 * `title`, the load average and every line; a miss sets exit code 1 unless `noFail`.
 */
export async function runBenchParts({ title, scratchPrefix, parts, complete, resultsFile, noFail }) {
  if (!existsSync(TESTKIT) || !existsSync(`${ROOT}packages/generate/dist/main.js`)) exitWithUsage('packages are not built: run `npx tsc -b` first');
  const { startScriptedEndpoint } = await import(TESTKIT);
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), scratchPrefix));
  try {
    const results = [];
    for (const part of parts) results.push(await part(startScriptedEndpoint, dir));
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, loadBefore, loadAfter: loadavg() },
      ...Object.assign({}, ...results.map((result) => result.report)),
    };
    if (complete) writeResults(resultsFile, report);
    process.stdout.write(
      `${[
        `${title}, load average ${loadBefore.map((v) => v.toFixed(1)).join(' ')} on ${cpus().length} CPUs`,
        ...results.flatMap((result) => result.lines),
        complete ? `written to ${shownPath(resultsFile)}` : `(a partial run: ${shownPath(resultsFile)} left as it was)`,
      ].join('\n')}\n`,
    );
    const misses = results.flatMap((result) => result.misses);
    if (misses.length > 0 && !noFail) {
      process.stderr.write(misses.map((miss) => `bench: ${miss}\n`).join(''));
      process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
