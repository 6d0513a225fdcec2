// A billing refusal (OpenAI's 429 insufficient_quota) is the account's, not the prompt's: every
// prompt would meet it, so the run stops at the first one. Real processes: hermes-testkit serve
// --insufficient-quota, then, the account "fixed", a plain hermes-testkit on the same port for the
// --resume. The stopped run starts no new prompt (the endpoint sees no more requests than prompts
// run at once), says what to check, exits 1, and the resume finishes every prompt.
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, jsonl, parseJsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';
import { freePort, startServer, type ServerProcess } from '../util/servers.js';

const PROMPTS = Array.from({ length: 12 }, (_, i) => ({ prompt: `task ${i}` }));
const AT_ONCE = 3;

async function testkit(port: number, args: readonly string[]): Promise<ServerProcess> {
  return startServer(binPath('testkit', 'hermes-testkit'), ['serve', '--port', String(port), ...args], /^(http:\/\/\S+)\n/m);
}

/** Stops a testkit and resolves with its closing stats line (requests received, answered, refused). */
async function stop(server: ServerProcess): Promise<{ requests: number; answered: number; refused: number }> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
  const stats = /stats: (\{.*?\})/.exec(server.output());
  if (!stats) throw new Error(`no stats line from hermes-testkit:\n${server.output()}`);
  return JSON.parse(stats[1]!) as { requests: number; answered: number; refused: number };
}

describe('hermes-generate run mode at a billing refusal (hermes-testkit --insufficient-quota, real processes)', () => {
  it('stops at the first insufficient_quota: no new prompt starts, exit 1 with what to check; --resume finishes once it is fixed', async () => {
    const port = await freePort();
    const billing = await testkit(port, ['--insufficient-quota']);
    const dir = tempDir('hermes-billing-');
    writeFiles(dir, { 'prompts.jsonl': jsonl(PROMPTS) });
    const args = ['prompts.jsonl', '--run-name', 'billing', '--toolsets', 'todo', '-c', String(AT_ONCE)];

    const stopped = await runGenerate(billing.ready, PROMPTS, args, { dir });
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.stderr).toContain('the run stops at the first insufficient-quota failure (check your plan and billing)');
    expect(stopped.stderr).toContain('--resume continues');
    expect(stopped.stderr).not.toMatch(/paused|retry/i);
    // Only the prompts already running when the first refusal came sent a request; none after it.
    const seen = await stop(billing);
    expect(seen.answered).toBe(0);
    expect(seen.requests).toBeGreaterThanOrEqual(1);
    expect(seen.requests).toBeLessThanOrEqual(AT_ONCE);
    expect(parseJsonl(stopped.stdout)).toEqual([]);
    const run = expectRunInvariants(join(dir, 'data', 'billing'));
    expect(run.records).toEqual([]);
    expect(run.failures.length).toBeGreaterThanOrEqual(1);
    expect(run.failures.length).toBeLessThanOrEqual(seen.requests);
    for (const failure of run.failures) {
      expect(failure.error_class).toBe('insufficient-quota');
      expect(failure.reason).toContain('billing settings');
    }

    // The account is fixed: the same endpoint now answers. --resume runs every prompt, the failed ones too.
    const fixed = await testkit(port, []);
    const resumed = await runGenerate(fixed.ready, PROMPTS, [...args, '--resume'], { dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = expectRunInvariants(join(dir, 'data', 'billing'));
    expect(after.records).toHaveLength(PROMPTS.length);
    expect((await stop(fixed)).answered).toBeGreaterThanOrEqual(PROMPTS.length);
  });
});
