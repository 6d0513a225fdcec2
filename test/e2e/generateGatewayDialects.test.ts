// Every row of the gateway-error table, served by the scripted endpoint with the gateway's own body
// (fixtures/gateway-errors/dialects.json): doctor (in-process) and a generate run (a real process)
// name it alike (doctor's failing check = the run's error_class) and exit with the same code, and the
// run's reason carries the row's fix. A billing 429 is never retried, and the first one stops the run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { spec } from '@hermes-datagen/generate/internal/main.js';
import { FAILURE_KINDS, type FailureKindId } from '@hermes-datagen/generate/internal/failureKinds.js';
import { readGatewayError } from '@hermes-datagen/core/endpoint';
import { parseJsonl, runInProcess } from '../util/cli.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { DIALECT_FIXTURES } from '../util/gatewayDialects.js';

interface Report {
  readonly exit_code: number;
  readonly checks: { id: string; status: string; message: string; fix?: string }[];
}

describe('doctor and a run agree on every gateway dialect', () => {
  it.each(DIALECT_FIXTURES)('$gateway $status ($dialect): $kind', async ({ status, body, kind }) => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY, script: { faults: [{ kind: 'gateway_error', status, body }] } });
    const exit = FAILURE_KINDS[kind as FailureKindId].exit;
    const fix = readGatewayError(status, body)?.fix ?? '';
    const doctor = await runInProcess(spec, ['doctor', '--json', '--base-url', endpoint.url, '--model', TEST_MODEL], { env: { HERMES_API_KEY: TEST_API_KEY } });
    const report = JSON.parse(doctor.stdout) as Report;
    const failed = report.checks.find((c) => c.status === 'fail');
    expect(failed?.id).toBe(kind);
    // An unknown model's fix names the closest models GET /models lists (doctor looks them up).
    if (kind !== 'model-not-found') expect(failed?.fix).toContain(fix.slice(0, 40));
    expect(doctor.code).toBe(exit);

    const run = await runGenerate(endpoint.url, [{ prompt: 'one', id: 'p-one' }], ['--toolsets', 'todo', '--rejects', 'rejects.jsonl']);
    expect(run.code).toBe(exit);
    const [failure] = parseJsonl(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8')) as { error_class: string; retryable: boolean; reason: string }[];
    expect(failure).toMatchObject({ error_class: kind, retryable: exit === 4 });
    expect(failure?.reason).toContain(fix.slice(0, 40));
  });

  it("a prompt too long for the model's context fails alone: the other prompts are written (run mode)", async () => {
    const tooLong = DIALECT_FIXTURES.find((f) => f.gateway === 'vLLM' && f.kind === 'context-length')!;
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { faults: [{ kind: 'gateway_error', when: { prompt: { contains: 'huge' } }, status: tooLong.status, body: tooLong.body }] },
    });
    const prompts = [
      { prompt: 'small one', id: 'a' },
      { prompt: 'a huge one', id: 'b' },
      { prompt: 'small two', id: 'c' },
    ];
    const run = await runGenerate(endpoint.url, prompts, ['--toolsets', 'todo', '--run-name', 'ctx']);
    expect(run.code).toBe(1);
    expect(run.records.map((r) => r.id).sort()).toEqual(['a', 'c']);
    const failures = parseJsonl(readFileSync(join(run.dir, 'data', 'ctx', 'failures.jsonl'), 'utf8')) as { id: string; error_class: string }[];
    expect(failures).toMatchObject([{ id: 'b', error_class: 'context-length' }]);
    expect(endpoint.requests.filter((r) => JSON.stringify(r.body).includes('huge'))).toHaveLength(1);
  });

  it('insufficient_quota: the first refusal stops the run, never retried, exit 1 (run mode)', async () => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY, insufficientQuota: true });
    const prompts = Array.from({ length: 6 }, (_, i) => ({ prompt: `task ${i}`, id: `p${i}` }));
    const run = await runGenerate(endpoint.url, prompts, ['--toolsets', 'todo', '--run-name', 'quota', '-c', '3']);
    expect(run.code).toBe(1);
    // One request from each prompt running when the first refusal came (none retried), none from a later prompt.
    const requests = endpoint.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(requests.length).toBeGreaterThanOrEqual(1);
    expect(requests.length).toBeLessThanOrEqual(3);
    const failures = parseJsonl(readFileSync(join(run.dir, 'data', 'quota', 'failures.jsonl'), 'utf8')) as { error_class: string }[];
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures.map((f) => f.error_class)).toEqual(failures.map(() => 'insufficient-quota'));
    expect(run.stderr).toContain('check your plan and billing');
    expect(run.stderr).toContain('billing settings');
    expect(run.stderr).not.toContain('paused');
  });
});
