// The bench scripts of `make bench`, each run once at a tiny size with --out to a scratch directory
// (the real results stay as they are): they must still run against today's code and write their
// results file. Their figures at this size mean nothing, so misses are only reported (--no-fail).
// Nothing else runs these scripts before a full `make bench`, and one of them once broke unnoticed
// when an API it used changed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runProcess, tempDir } from '../util/cli.js';

const SCRIPT_TIMEOUT_MS = 300_000;

async function bench(script: string, args: readonly string[]): Promise<{ stdout: string; results: (name: string) => Record<string, unknown> }> {
  const out = tempDir('hermes-bench-smoke-');
  const result = await runProcess(join(REPO_ROOT, 'bench', script), [...args, '--no-fail', '--out', out]);
  expect(result.code, result.stderr).toBe(0);
  return { stdout: result.stdout, results: (name) => JSON.parse(readFileSync(join(out, name), 'utf8')) as Record<string, unknown> };
}

describe('the bench scripts', () => {
  it(
    'bench/run.mjs measures the named CLIs and their baselines on a small corpus',
    async () => {
      const { stdout, results } = await bench('run.mjs', ['--records', '200', '--repeat', '1', '--only', 'hermes-stats,hermes-filter']);
      expect(stdout).toMatch(/hermes-stats/);
      const names = (results('latest.json')['results'] as { name: string }[]).map((r) => r.name);
      expect(names).toEqual(expect.arrayContaining(['baseline-parse', 'baseline-rewrite', 'hermes-stats', 'hermes-filter']));
    },
    SCRIPT_TIMEOUT_MS,
  );

  it(
    'bench/to-atropos.mjs measures each export in chats per CPU-second, with and without start-up',
    async () => {
      const { stdout, results } = await bench('to-atropos.mjs', ['--records', '20', '--repeat', '1']);
      expect(stdout).toMatch(/hermes-to-atropos scored: \d+ chats per CPU-second/);
      const [scored] = results('to-atropos.json')['exports'] as { name: string; chats: number; startupCpuS: number }[];
      expect(scored).toMatchObject({ name: 'scored', chats: 20 });
      expect(scored?.startupCpuS).toBeGreaterThan(0);
    },
    SCRIPT_TIMEOUT_MS,
  );

  it(
    'bench/generate.mjs measures CPU per turn and concurrency against the scripted endpoint',
    async () => {
      const { stdout, results } = await bench('generate.mjs', ['--cpu-prompts', '4', '--latency-prompts', '8', '--load-prompts', '16']);
      expect(stdout).toMatch(/ms CPU per turn/);
      expect(results('generate.json')).toMatchObject({ cpu: { prompts: 4 }, load: { prompts: 16 } });
    },
    SCRIPT_TIMEOUT_MS,
  );

  it(
    'bench/generate-tools.mjs runs prompts with real tool processes and checks every result',
    async () => {
      const { stdout, results } = await bench('generate-tools.mjs', ['--prompts', '8', '--concurrency', '4']);
      expect(stdout).toMatch(/8\/8 records, 0 wrong results/);
      expect(Object.keys(results('generate-tools.json')['runs'] as object)).toEqual(['load', 'none', 'fds']);
    },
    SCRIPT_TIMEOUT_MS,
  );

  it(
    'bench/generate-quota.mjs runs the quota table, the upstream-style client and the fault storm',
    async () => {
      const { stdout, results } = await bench('generate-quota.mjs', [
        '--prompts',
        '4',
        '--seconds',
        '2',
        '--latency-ms',
        '50',
        '--storm-prompts',
        '6',
        // A call that never gets an answer would hold the tiny storm for the default 120 s.
        '--storm-request-timeout',
        '2',
      ]);
      expect(stdout).toMatch(
        /reachable ideal: .* s = the best schedule .* s \(-c 40, 5 calls in a row a prompt\) \+ process start and exit .* s \(an empty run\)/,
      );
      expect(stdout).toMatch(/openai +retry-after seconds: .* of ideal \(.* of the reachable\), 429s/);
      expect(stdout).toMatch(/storm \(--request-timeout 2\): .* of 6 prompts done in one invocation/);
      const report = results('generate-quota.json');
      expect((report['quota'] as { runs: unknown[] }).runs).toHaveLength(8);
      expect((report['quota'] as { reachable: { scheduleS: number } }).reachable.scheduleS).toBeGreaterThan(0);
      expect((report['upstream'] as { runs: unknown[] }).runs).toHaveLength(2);
      expect(report['floor']).toMatchObject({ answered: 20 });
      expect(report['storm']).toMatchObject({ prompts: 6, flags: '--request-timeout 2' });
    },
    SCRIPT_TIMEOUT_MS,
  );

  it(
    'bench/generate-batch.mjs runs prompts through --batch-api rounds and measures them against the ideal',
    async () => {
      const { stdout, results } = await bench('generate-batch.mjs', ['--prompts', '6', '--turns', '2', '--delay-ms', '50', '--poll-ms', '20']);
      expect(stdout).toMatch(/s wall against the rounds' ideal/);
      expect(results('generate-batch.json')).toMatchObject({ batch: { prompts: 6, records: 6, customIdsSubmittedMoreThanOnce: 0, chatRequests: 0 } });
    },
    SCRIPT_TIMEOUT_MS,
  );

  it(
    'bench/generate-run.mjs compares run mode with stream mode, resumes the run, and runs the gateway part',
    async () => {
      const { stdout, results } = await bench('generate-run.mjs', ['--prompts', '20', '--repeat', '1', '--gateway-prompts', '8']);
      expect(stdout).toMatch(/overhead of the run directory/);
      expect(stdout).toMatch(/resume of the finished run/);
      expect(results('generate-run.json')).toMatchObject({ run: { prompts: 20, records: 20 }, resume: { records: 0 }, gateway: { prompts: 8 } });
    },
    SCRIPT_TIMEOUT_MS,
  );
});
