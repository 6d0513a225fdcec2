// A fresh clone needs nothing installed by hand: .ci/run's path (make setup, then the tests) on a clone of
// this repository in a temporary directory, with an empty npm cache, so that nothing an earlier install
// left on this machine can hide a missing step. What is cloned is the committed tree (HEAD): work not yet
// committed is not in a clone, exactly as it would not be for a user.
// In the clone: `make setup` installs the npm packages from the registry into the empty cache (npm ci) and
// builds; the Debian packages it would install when missing are all present here, so it must install
// none. Then `make demo`, the main job, from the clone's own install and build, and two test files of the
// clone's own suite through its own runner (test/run.mjs, as make test runs it): the README test (every
// command of README.md and docs/*.md as a new user types it, npx resolving into the same empty-at-first
// cache) and the HTML report rendered in Chromium, over DuckDB. Not the whole suite again: this test is
// part of it.
// The registry must be reachable: without it the test fails, saying so.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../util/cli.js';
import { processesUnder } from '../util/processes.js';

interface Step {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

const running = new Set<ChildProcess>();
let work: string | undefined;

// A step cut short by the test's timeout must not go on writing into the directory removed here.
afterEach(() => {
  for (const child of running) if (child.pid !== undefined) killGroup(child.pid);
  running.clear();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  work = undefined;
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has exited.
  }
}

/**
 * A clean environment, as on a fresh machine: none of this run's npm_* or test variables but the ones that
 * say how to reach the registry (as a user's ~/.npmrc, which stays), and the npm cache given.
 */
function freshEnv(npmCache: string): NodeJS.ProcessEnv {
  const keep =
    /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LC_ALL|TMPDIR|(https?|no)_proxy|(HTTPS?|NO)_PROXY|npm_config_(registry|proxy|https_proxy|noproxy|cafile|strict_ssl))$/;
  return { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => keep.test(key))), npm_config_cache: npmCache };
}

/** Runs a command in its own process group (so that all of it can be stopped), stdout and stderr together. */
function step(cwd: string, env: NodeJS.ProcessEnv, command: string, ...args: string[]): Promise<Step> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

function expectOk(result: Step, what: string): void {
  expect(result.code, `${what} failed (exit ${result.code}, signal ${result.signal}):\n${result.output.slice(-6000)}`).toBe(0);
}

describe('a fresh clone (the committed tree) needs nothing installed by hand', () => {
  it('make setup installs from the npm registry into an empty cache and builds; make demo, the README test and the HTML report test pass in the clone', async () => {
    work = mkdtempSync(join(tmpdir(), 'hermes-fresh-clone-'));
    const clone = join(work, 'repo');
    const npmCache = join(work, 'npm-cache');
    mkdirSync(npmCache);
    const env = freshEnv(npmCache);

    const registry = (await step(work, env, 'npm', 'config', 'get', 'registry')).output.trim();
    const ping = await step(work, env, 'npm', 'ping', '--fetch-timeout=30000', '--fetch-retries=1');
    if (ping.code !== 0) {
      const why = ping.output.split('\n').find((line) => /FetchError|error code/.test(line)) ?? ping.output.trim().slice(-500);
      throw new Error(
        `the npm registry ${registry} is not reachable (npm ping exited ${ping.code}: ${why.replace(/^npm error /, '')}). ` +
          'This test installs a fresh clone from it, as a new user does; run the suite where the registry can be reached.',
      );
    }

    const revParse = await step(REPO_ROOT, env, 'git', 'rev-parse', 'HEAD');
    expectOk(revParse, `git rev-parse HEAD in ${REPO_ROOT} (this test clones the repository, so it needs one)`);
    const head = revParse.output.trim();
    expectOk(await step(work, env, 'git', 'clone', '--quiet', REPO_ROOT, clone), 'git clone');
    expect((await step(clone, env, 'git', 'rev-parse', 'HEAD')).output.trim()).toBe(head);
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);

    const setup = await step(clone, env, 'make', 'setup');
    expectOk(setup, 'make setup');
    expect(setup.output).toContain('npm ci');
    // Every package came through the empty cache (from the registry); no Debian package was missing.
    expect(readdirSync(join(npmCache, '_cacache', 'index-v5')).length).toBeGreaterThan(0);
    expect(setup.output).not.toMatch(/setup: (installing|the test suite needs)/);
    for (const cli of ['generate', 'filter', 'compress', 'stats', 'verify', 'to-atropos']) {
      expect(existsSync(join(clone, `packages/${cli}/dist/main.js`)), cli).toBe(true);
    }

    const demo = await step(clone, env, 'make', 'demo');
    expectOk(demo, 'make demo');
    const prompts = readFileSync(join(clone, 'fixtures/prompts.jsonl'), 'utf8').trim().split('\n').length;
    expect(demo.output).toContain(`Trajectories: ${prompts}\n`);
    expect(demo.output).toMatch(/hermes-verify: PASS: 0 failed/);
    expect(readFileSync(join(clone, 'demo-output/sft.jsonl'), 'utf8').trim().split('\n')).toHaveLength(prompts);

    const tests = ['test/e2e/readme.test.ts', 'test/stats/html.test.ts'];
    const test = await step(clone, env, 'node', 'test/run.mjs', ...tests);
    expectOk(test, `the clone's test/run.mjs ${tests.join(' ')}`);
    expect(test.output).toMatch(/\n[1-9][0-9]* passed, 0 failed\n/);
    // Each file ran, whole, none of its tests skipped: the runner's JSON report says so.
    const report = JSON.parse(readFileSync(join(clone, '.vitest.json'), 'utf8')) as {
      testResults: { name: string; status: string; assertionResults: { status: string }[] }[];
    };
    expect(report.testResults.map((r) => [r.name.slice(clone.length + 1), r.status]).sort()).toEqual(tests.map((file) => [file, 'passed']).sort());
    for (const r of report.testResults) {
      expect(r.assertionResults.length, r.name).toBeGreaterThan(0);
      expect(new Set(r.assertionResults.map((a) => a.status)), r.name).toEqual(new Set(['passed']));
    }

    // What setup, the demo and the tests wrote is all ignored by git, and nothing of theirs still runs.
    expect((await step(clone, env, 'git', 'status', '--porcelain')).output).toBe('');
    expect(processesUnder(work)).toEqual([]);
  }, 1_800_000);
});
