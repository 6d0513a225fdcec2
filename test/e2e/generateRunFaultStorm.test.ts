// The fault storm: about 30% of model calls answer 429 (some with only the provider's x-ratelimit
// headers), 500, never, an HTML page or a body without choices. Every prompt still ends as a record
// or in failures.jsonl with its class, the request rate the endpoint sees never goes above --rpm, a
// call that gets no answer ends at --request-timeout, and no rate-limited call fails while others
// succeed. A quota that stays refused (for --quota-wait, or a Retry-After longer than it) ends the
// run resumably with exit 4, its running prompts failed as rate-limited.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptId } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { jsonl, tempDir, writeFiles } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';

const RPM = 600;

describe('hermes-generate run mode in a fault storm', () => {
  it('ends every prompt as a record or a classed failure, never above --rpm', async () => {
    const endpoint = await scriptedEndpoint({
      seed: 7,
      script: {
        sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] }],
        faults: [
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
      ['prompts.jsonl', '--run-name', 'storm', '--toolsets', 'todo', '--batch-size', '4', '--num-workers', '2', '--rpm', String(RPM), '--request-timeout', '2'],
      { dir },
    );
    expect([0, 1, 4], result.stderr).toContain(result.code);

    const run = expectRunInvariants(join(dir, 'data', 'storm'));
    const written = new Set(run.records.map((r) => r['id'] as string));
    const failed = new Map(run.failures.map((f) => [f.id, f.error_class]));
    for (const [index, row] of prompts.entries()) {
      const id = promptId(row, index);
      expect(written.has(id) !== failed.has(id), `${id} is either written or failed`).toBe(true);
    }
    // Each failure has the class its fault stands for, as doctor names it; a rate limit is waited out, never a failure here.
    for (const errorClass of failed.values()) expect(['server-error', 'timeout', 'not-an-api', 'no-choices', 'malformed-reply']).toContain(errorClass);
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
  });

  it('a Retry-After longer than --quota-wait ends the run at once: the refused prompt fails as rate-limited, exit 4, resumable', async () => {
    const endpoint = await scriptedEndpoint({
      script: {
        sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] }],
        faults: [{ kind: 'rate_limit', when: { nth: [3] }, retry_after_s: 3600 }],
      },
    });
    const dir = tempDir('hermes-storm-');
    const prompts = Array.from({ length: 20 }, (_, i) => ({ prompt: `task ${i}` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const args = ['prompts.jsonl', '--run-name', 'quota', '--toolsets', 'todo', '--batch-size', '1', '--num-workers', '1'];
    const result = await runGenerate(endpoint.url, prompts, args, { dir });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/asks to wait 3600s \(Retry-After\), longer than --quota-wait 300s; the run stops and --resume continues it later/);
    const run = expectRunInvariants(join(dir, 'data', 'quota'));
    expect(run.records).toHaveLength(2);
    expect(run.failures.map((f) => f.error_class)).toEqual(['rate-limited']);
    expect(run.manifest.invocations[0]).toMatchObject({ exit_code: 4 });
    // The quota is back: --resume runs the failed prompt and the rest.
    const resumed = await runGenerate(endpoint.url, prompts, [...args, '--resume'], { dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(expectRunInvariants(join(dir, 'data', 'quota')).records).toHaveLength(20);
  });

  it('waits out 429s with no Retry-After and no headers while others succeed; with no success for --quota-wait the run stops, exit 4', async () => {
    const endpoint = await scriptedEndpoint({
      script: {
        sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Think.', content: 'done' }] }],
        // From the 5th request on, every one is refused, saying nothing of when to come back.
        faults: [{ kind: 'rate_limit', when: { nth: Array.from({ length: 2000 }, (_, i) => i + 5) }, headers: {} }],
      },
    });
    const dir = tempDir('hermes-storm-');
    const prompts = Array.from({ length: 8 }, (_, i) => ({ prompt: `task ${i}` }));
    writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
    const result = await runGenerate(
      endpoint.url,
      prompts,
      ['prompts.jsonl', '--run-name', 'stall', '--toolsets', 'todo', '--batch-size', '2', '--num-workers', '1', '--quota-wait', '3'],
      { dir },
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/no model call has succeeded for 3(\.\d)?s \(--quota-wait 3s\), every one refused as rate-limited/);
    // The pause is announced once, however many refusals and probes.
    expect(result.stderr.match(/refuses even one request at a time/g)).toHaveLength(1);
    const run = expectRunInvariants(join(dir, 'data', 'stall'));
    expect(run.records).toHaveLength(4);
    expect(run.failures.map((f) => f.error_class)).toEqual(['rate-limited', 'rate-limited']);
  });
});
