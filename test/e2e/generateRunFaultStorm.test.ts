// The fault storm: about 30% of model calls answer 429 (a few with Retry-After 3600, the quota
// signal; others with only the provider's x-ratelimit headers), 500, never, an HTML page or a body
// without choices. Every prompt still ends as a record or in failures.jsonl with its class, the
// request rate the endpoint sees never goes above --rpm, a call that gets no answer ends at
// --request-timeout, and the one quota pause does not fail anything.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { promptId } from '@hermes-datagen/core';
import { startScriptedEndpoint, type ScriptedEndpoint } from '@hermes-datagen/testkit';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';

let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const RPM = 600;

describe('hermes-generate run mode in a fault storm', () => {
  it('ends every prompt as a record or a classed failure, never above --rpm', async () => {
    endpoint = await startScriptedEndpoint({
      seed: 7,
      script: {
        sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] }],
        faults: [
          // One answer asks to wait an hour: an exhausted quota, which pauses the run (--quota-wait).
          { kind: 'rate_limit', when: { nth: [6] }, retry_after_s: 3600 },
          // One prompt's call never gets an answer, whatever the draws.
          { kind: 'timeout', when: { prompt: { exact: 'task 13' } } },
          { kind: 'rate_limit', rate: 0.12, headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '300ms' } },
          { kind: 'rate_limit', rate: 0.05, retry_after_s: 1 },
          { kind: 'server_error', rate: 0.05 },
          { kind: 'timeout', rate: 0.03 },
          { kind: 'html', rate: 0.03 },
          { kind: 'no_choices', rate: 0.03 },
        ],
      },
    });
    const dir = tempDir('hermes-storm-');
    const prompts = Array.from({ length: 60 }, (_, i) => ({ prompt: `task ${i}` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const result = await runGenerate(
      endpoint.url,
      prompts,
      [
        'prompts.jsonl',
        '--run-name',
        'storm',
        '--toolsets',
        'todo',
        '--batch-size',
        '4',
        '--num-workers',
        '2',
        '--rpm',
        String(RPM),
        '--quota-wait',
        '1',
        '--request-timeout',
        '2',
      ],
      { dir },
    );
    expect([0, 1, 4], result.stderr).toContain(result.code);
    expect(result.stderr).toMatch(/asks to wait 3600s .*paused for 1s \(--quota-wait\)/);

    const run = expectRunInvariants(join(dir, 'data', 'storm'));
    const written = new Set(run.records.map((r) => r['id'] as string));
    const failed = new Map(run.failures.map((f) => [f.id, f.error_class]));
    for (const [index, row] of prompts.entries()) {
      const id = promptId(row, index);
      expect(written.has(id) !== failed.has(id), `${id} is either written or failed`).toBe(true);
    }
    // Each failure has the class its fault stands for, as doctor names it.
    for (const errorClass of failed.values())
      expect(['rate-limited', 'server-error', 'timeout', 'prompt-timeout', 'not-an-api', 'no-choices', 'malformed-reply']).toContain(errorClass);
    expect(written.size).toBeGreaterThan(30);
    // The calls that never got an answer ended at --request-timeout, retries included.
    expect(failed.get(promptId(prompts[13]!, 13))).toBe('timeout');
    for (const failure of run.failures.filter((f) => f.error_class === 'timeout')) expect(failure.reason).toMatch(/no answer within 2 s/);

    // The rate the endpoint saw: no second holds more than rpm/60 request arrivals (+2: on a busy
    // machine the endpoint, in this process, may take in requests sent 100 ms apart together).
    const arrivals = endpoint.requests
      .filter((r) => r.path.endsWith('/chat/completions'))
      .map((r) => r.receivedAt)
      .sort((a, b) => a - b);
    const perSecond = RPM / 60;
    for (let i = 0; i < arrivals.length; i += 1) {
      const inWindow = arrivals.filter((t) => t >= arrivals[i]! && t < arrivals[i]! + 1000).length;
      expect(inWindow, `arrivals in the second from ${arrivals[i]! - arrivals[0]!} ms`).toBeLessThanOrEqual(perSecond + 2);
    }
  }, 120_000);

  it('stops resumably with exit 4 when the quota is still exhausted after --quota-wait, failing nothing', async () => {
    endpoint = await startScriptedEndpoint({
      script: {
        sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] }],
        faults: [{ kind: 'rate_limit', when: { nth: Array.from({ length: 50 }, (_, i) => i + 3) }, retry_after_s: 3600 }],
      },
    });
    const dir = tempDir('hermes-storm-');
    const prompts = Array.from({ length: 20 }, (_, i) => ({ prompt: `task ${i}` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const result = await runGenerate(
      endpoint.url,
      prompts,
      ['prompts.jsonl', '--run-name', 'quota', '--toolsets', 'todo', '--batch-size', '1', '--num-workers', '1', '--quota-wait', '0.5'],
      { dir },
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/the quota is still exhausted after a pause of 0.5s .*--resume continues it later/);
    const run = expectRunInvariants(join(dir, 'data', 'quota'));
    expect(run.records).toHaveLength(2);
    expect(run.failures).toEqual([]);
    expect(run.manifest.invocations[0]).toMatchObject({ exit_code: 4 });
  });
});
