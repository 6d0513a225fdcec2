// One classifier, one meaning: for each endpoint failure, `hermes-generate doctor` (in-process) and a
// generate run (a real process) name it alike (doctor's failing check id = the run's error_class in
// --rejects) and exit with the same code: 1 needs a fix, 4 worth retrying later.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedEndpoint, type ScriptedEndpointOptions } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { spec } from '@hermes-datagen/generate/internal/main.js';
import { parseJsonl, runInProcess } from '../util/cli.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

interface Case {
  readonly what: string;
  readonly options: ScriptedEndpointOptions;
  /** The base URL from the endpoint's own. */
  readonly baseUrl?: (url: string) => string;
  readonly id: string;
  readonly exit: number;
}

const CASES: Case[] = [
  { what: 'a refused key', options: { apiKey: 'sk-the-gateway-expects-another-key' }, id: 'unauthorized', exit: 1 },
  { what: 'an unknown model', options: { script: { models: ['another-model'] } }, id: 'model-not-found', exit: 1 },
  { what: 'a doubled /v1', options: {}, baseUrl: (url) => `${url}/v1`, id: 'path-404', exit: 1 },
  { what: 'an HTML page', options: { script: { faults: [{ kind: 'html' }] } }, id: 'not-an-api', exit: 1 },
  { what: 'a rate limit inside a 200', options: { script: { faults: [{ kind: 'error_in_200' }] } }, id: 'rate-limited', exit: 4 },
  { what: 'a body cut short', options: { script: { faults: [{ kind: 'truncated' }] } }, id: 'malformed-reply', exit: 4 },
];

describe('doctor and generate agree on what a failure means', () => {
  it.each(CASES)('$what: $id, exit $exit', async ({ options, baseUrl, id, exit }) => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY, ...options });
    const url = baseUrl ? baseUrl(endpoint.url) : endpoint.url;
    const doctor = await runInProcess(spec, ['doctor', '--json', '--base-url', url, '--model', TEST_MODEL], { env: { HERMES_API_KEY: TEST_API_KEY } });
    const report = JSON.parse(doctor.stdout) as { checks: { id: string; status: string }[] };
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)[0]).toBe(id);
    expect(doctor.code).toBe(exit);

    const run = await runGenerate(url, [{ prompt: 'one', id: 'p-one' }], ['--toolsets', 'todo', '--rejects', 'rejects.jsonl']);
    expect(run.code).toBe(exit);
    const [failure] = parseJsonl(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8')) as { id: string; error_class: string }[];
    expect(failure).toMatchObject({ id: 'p-one', error_class: id });
  });

  it('a refused connection: connection-refused, exit 4', async () => {
    const closed = await startScriptedEndpoint();
    await closed.close();
    const doctor = await runInProcess(spec, ['doctor', '--json', '--base-url', closed.url, '--model', TEST_MODEL], { env: { HERMES_API_KEY: TEST_API_KEY } });
    expect(doctor.code).toBe(4);
    expect((JSON.parse(doctor.stdout) as { checks: { id: string; status: string }[] }).checks.find((c) => c.status === 'fail')?.id).toBe('connection-refused');
    const run = await runGenerate(closed.url, [{ prompt: 'one' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('(1 connection-refused;');
  });
});
