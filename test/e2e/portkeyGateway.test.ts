// A real third-party gateway in front of hermes-testkit: the Portkey AI Gateway (@portkey-ai/gateway,
// a devDependency pinned to one version, started here on a free port with no network), its required
// headers given with --header. make demo's pipeline passes through it, and doctor through it names a
// refused key (unauthorized), an unknown model and a missing Portkey header (header-required) right.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '@hermes-datagen/core';
import { spec } from '@hermes-datagen/generate/internal/main.js';
import { parseJsonl, REPO_ROOT, runInProcess } from '../util/cli.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { startPortkey, startTestkit } from '../util/servers.js';

const MODEL = 'hermes-testkit-scripted';

interface Report {
  readonly checks: { id: string; status: string; message: string; fix?: string }[];
}

async function doctor(portkey: string, args: readonly string[], key = TEST_API_KEY) {
  const result = await runInProcess(spec, ['doctor', '--json', '--base-url', portkey, ...args], { env: { HERMES_API_KEY: key } });
  return { code: result.code, failed: (JSON.parse(result.stdout) as Report).checks.find((c) => c.status === 'fail'), stdout: result.stdout };
}

const portkeyHeaders = (testkit: string): string[] => ['--header', 'x-portkey-provider: openai', '--header', `x-portkey-custom-host: ${testkit}`];

function runDemo(out: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['fixtures/demo/run-demo.sh'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', SHLVL: '1', HERMES_DEMO_OUTPUT: out, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the Portkey AI Gateway in front of hermes-testkit', () => {
  it("make demo's pipeline passes through it, with Portkey's headers from DEMO_HEADERS (--header)", { timeout: 240_000 }, async () => {
    const testkit = await startTestkit();
    const portkey = await startPortkey();
    const out = mkdtempSync(join(tmpdir(), 'hermes-demo-portkey-'));
    try {
      const demo = await runDemo(out, {
        DEMO_BASE_URL: portkey,
        DEMO_MODEL: MODEL,
        HERMES_API_KEY: TEST_API_KEY,
        DEMO_HEADERS: `x-portkey-provider: openai\nx-portkey-custom-host: ${testkit}`,
      });
      expect(demo.code, demo.stderr).toBe(0);
      expect(demo.stdout).toMatch(/hermes-verify: PASS: 0 failed/);
      const prompts = readFileSync(join(REPO_ROOT, 'fixtures/prompts.jsonl'), 'utf8').trim().split('\n').length;
      const records = parseJsonl(readFileSync(join(out, 'trajectories.jsonl'), 'utf8')) as Trajectory[];
      // As make demo without a gateway: every prompt's record reaches the report.
      expect(demo.stdout).toContain(`Trajectories: ${prompts}\n`);
      expect(records.length).toBeGreaterThan(0);
      expect(records.every((r) => r.metadata.served_model === MODEL)).toBe(true);
      expect(readFileSync(join(out, 'generate.log'), 'utf8')).not.toContain(TEST_API_KEY);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('doctor through it: healthy with its headers, and each failure named', async () => {
    const testkit = await startTestkit(['--api-key-env', 'TESTKIT_KEY', '--script', 'fixtures/testkit/coding-task.json'], { TESTKIT_KEY: TEST_API_KEY });
    const portkey = await startPortkey();

    const healthy = await doctor(portkey, ['--model', MODEL, '--toolsets', 'terminal', ...portkeyHeaders(testkit)]);
    expect(healthy.failed, healthy.stdout).toBeUndefined();
    expect(healthy.code).toBe(0);

    const missing = await doctor(portkey, ['--model', MODEL]);
    expect(missing.failed?.id).toBe('header-required');
    expect(missing.failed?.message).toContain('x-portkey-config or x-portkey-provider');
    expect(missing.failed?.fix).toContain("--header 'x-portkey-provider: openai'");
    expect(missing.code).toBe(1);

    const wrongKey = await doctor(portkey, ['--model', MODEL, ...portkeyHeaders(testkit)], 'sk-hermes-FAKE-wrong-key-0000000');
    expect(wrongKey.failed?.id).toBe('unauthorized');
    expect(wrongKey.code).toBe(1);

    const unknownModel = await doctor(portkey, ['--model', 'no-such-model', ...portkeyHeaders(testkit)]);
    expect(unknownModel.failed?.id).toBe('model-not-found');
    expect(unknownModel.failed?.message).toContain('no-such-model');
    expect(unknownModel.code).toBe(1);
  });
});
