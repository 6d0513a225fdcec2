// Doctor sends the run's real request: the same tools (chosen by the same flags), reasoning_effort and
// headers, and no max_tokens (a run sends none); so a deployment that refuses one of them (LiteLLM's
// UnsupportedParamsError, here from hermes-testkit --reject-param as a real process) fails doctor,
// naming the parameter and the flag that sends it, before it fails every prompt of a run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { spec } from '@hermes-datagen/generate/internal/main.js';
import { parseJsonl, runInProcess } from '../util/cli.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { startTestkit } from '../util/servers.js';

interface Report {
  readonly checks: { id: string; status: string; message: string; fix?: string }[];
}

const doctor = async (url: string, args: readonly string[]) => {
  const result = await runInProcess(spec, ['doctor', '--json', '--base-url', url, '--model', TEST_MODEL, ...args], { env: { HERMES_API_KEY: TEST_API_KEY } });
  return { code: result.code, failed: (JSON.parse(result.stdout) as Report).checks.find((c) => c.status === 'fail') };
};

describe('doctor sends the request a run sends', () => {
  it('the same tools, reasoning_effort and headers as a run with the same flags, and no max_tokens', async () => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY });
    const flags = ['--toolsets', 'terminal,file', '--reasoning-effort', 'low', '--header', 'x-portkey-provider: openai'];
    expect((await doctor(endpoint.url, flags)).code).toBe(0);
    const [probe] = endpoint.requests.filter((r) => r.path.endsWith('/chat/completions'));
    const run = await runGenerate(endpoint.url, [{ prompt: 'one task' }], flags);
    expect(run.code, run.stderr).toBe(0);
    const first = endpoint.requests.filter((r) => r.path.endsWith('/chat/completions'))[1];
    const shape = (request: typeof probe) => {
      const body = request?.body as { tools: { function: { name: string } }[]; reasoning_effort?: string; max_tokens?: number };
      return {
        tools: body.tools.map((tool) => tool.function.name).sort(),
        reasoning_effort: body.reasoning_effort,
        max_tokens: body.max_tokens,
        header: request?.headers['x-portkey-provider'],
      };
    };
    expect(shape(probe)).toEqual(shape(first));
    expect(shape(probe)).toMatchObject({ reasoning_effort: 'low', max_tokens: undefined, header: 'openai' });
    expect(shape(probe).tools).toContain('terminal');
  });

  it('a distribution: doctor offers every tool a prompt may draw', async () => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY });
    expect((await doctor(endpoint.url, ['--distribution', 'default'])).code).toBe(0);
    const body = endpoint.requests[0]?.body as { tools: { function: { name: string } }[] };
    const names = body.tools.map((tool) => tool.function.name);
    expect(names).toEqual(expect.arrayContaining(['terminal', 'read_file', 'write_file']));
  });

  it('a deployment that rejects reasoning_effort fails doctor naming it, and the run alike', async () => {
    const url = await startTestkit(['--reject-param', 'reasoning_effort']);
    expect((await doctor(url, ['--toolsets', 'todo'])).code).toBe(0);
    const refused = await doctor(url, ['--toolsets', 'todo', '--reasoning-effort', 'high']);
    expect(refused.code).toBe(1);
    expect(refused.failed?.id).toBe('param-rejected');
    expect(refused.failed?.message).toContain('rejects a parameter hermes-generate sends: reasoning_effort');
    expect(refused.failed?.fix).toContain('leave out --reasoning-effort');
    const run = await runGenerate(url, [{ prompt: 'one', id: 'p1' }], ['--toolsets', 'todo', '--reasoning-effort', 'high', '--rejects', 'rejects.jsonl']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('reasoning_effort');
  });

  it('a deployment that rejects tools fails doctor naming tools', async () => {
    const url = await startTestkit(['--reject-param', 'tools']);
    const refused = await doctor(url, ['--toolsets', 'terminal']);
    expect(refused.failed?.id).toBe('param-rejected');
    expect(refused.failed?.message).toContain(': tools');
    expect(refused.failed?.fix).toContain('--toolsets');
    expect(refused.code).toBe(1);
  });
});

describe('hermes-testkit --insufficient-quota (a real process)', () => {
  it('doctor names it a billing limit, exit 1, and a stream-mode run stops at the first refusal with exit 1', async () => {
    const url = await startTestkit(['--insufficient-quota']);
    const checked = await doctor(url, ['--toolsets', 'todo']);
    expect(checked.failed?.id).toBe('insufficient-quota');
    expect(checked.code).toBe(1);
    const prompts = Array.from({ length: 8 }, (_, i) => ({ prompt: `task ${i}` }));
    const run = await runGenerate(url, prompts, ['--toolsets', 'todo', '--rejects', 'rejects.jsonl', '-c', '2']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the run stops at the first insufficient-quota failure (check your plan and billing)');
    expect(parseJsonl(run.stdout)).toEqual([]);
    // At most the two prompts running at the first refusal are failed; the others never started.
    const rejects = parseJsonl(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8')) as { error_class: string }[];
    expect(rejects.length).toBeGreaterThanOrEqual(1);
    expect(rejects.length).toBeLessThanOrEqual(2);
    for (const reject of rejects) expect(reject.error_class).toBe('insufficient-quota');
  });
});
