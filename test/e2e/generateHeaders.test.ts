// --header reaches the endpoint on every model request: a run's agents and their sub-agents,
// hermes-compress --strategy llm, and doctor (all real processes but doctor, in-process); and a secret
// header's value never appears in what they write, even where the endpoint echoes it back.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyFingerprint } from '@hermes-datagen/core';
import type { ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { spec } from '@hermes-datagen/generate/internal/main.js';
import { binPath, jsonl, runInProcess, runProcess, tempDir } from '../util/cli.js';
import { expectNoSecret, runGenerate, TEST_MODEL } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { longRun } from '../compress/helpers.js';

const HEADER_SECRET = 'pk-FAKE-portkey-virtual-key-31337';
const HEADERS = ['--header', 'x-portkey-provider: openai', '--header', `x-portkey-virtual-key: ${HEADER_SECRET}`];

const chatRequests = (target: ScriptedEndpoint) => target.requests.filter((r) => r.path.endsWith('/chat/completions'));

describe('--header on every model request', () => {
  it('agents and sub-agents of a run send it', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: {
        sequences: [
          {
            match: { contains: 'split this' },
            replies: [
              { reasoning: 'Two parts.', tool_calls: [{ name: 'delegate_task', arguments: { tasks: [{ prompt: 'sub part A' }, { prompt: 'sub part B' }] } }] },
              { reasoning: 'Both answered.', content: 'combined answer' },
            ],
          },
          { match: { regex: '^sub part' }, replies: [{ reasoning: 'My part.', content: 'sub answer' }] },
        ],
      },
    });
    const run = await runGenerate(endpoint.url, [{ prompt: 'split this task', id: 'root' }], ['--run-name', 'r', '--toolsets', 'delegation,todo', ...HEADERS]);
    expect(run.code, run.stderr).toBe(0);
    const chats = chatRequests(endpoint);
    const subAgents = chats.filter((r) => JSON.stringify(r.body).includes('sub part'));
    expect(subAgents.length).toBeGreaterThanOrEqual(2);
    expect(chats.length).toBeGreaterThan(subAgents.length);
    for (const request of chats) {
      expect(request.headers['x-portkey-provider']).toBe('openai');
      expect(request.headers['x-portkey-virtual-key']).toBe(HEADER_SECRET);
    }
    expectNoSecret(run.dir, run, HEADER_SECRET);
  });

  it('hermes-compress --strategy llm sends it', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: { sequences: [{ match: { contains: 'CASE' }, replies: [{ content: 'The agent did it.' }] }] },
    });
    const dir = tempDir();
    const result = await runProcess(
      binPath('compress', 'hermes-compress'),
      ['--strategy', 'llm', '--target-max-tokens', '2000', '--base-url', endpoint.url, '--model', 'summarizer', '--metrics-file', 'm.json', ...HEADERS],
      { input: jsonl([longRun(12, 'CASE')]), env: { HERMES_API_KEY: TEST_API_KEY }, cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const chats = chatRequests(endpoint);
    expect(chats.length).toBeGreaterThan(0);
    for (const request of chats) expect(request.headers['x-portkey-virtual-key']).toBe(HEADER_SECRET);
    expectNoSecret(dir, result, HEADER_SECRET);
  });

  it('doctor sends it, shows it only by fingerprint, and redacts it from what the endpoint echoes', async () => {
    const echo = { error: { message: `Invalid virtual key ${HEADER_SECRET}`, type: 'invalid_request_error', code: 'invalid_virtual_key' } };
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY, script: { faults: [{ kind: 'gateway_error', status: 400, body: echo }] } });
    for (const json of [[], ['--json']]) {
      const doctor = await runInProcess(spec, ['doctor', ...json, '--base-url', endpoint.url, '--model', TEST_MODEL, ...HEADERS], {
        env: { HERMES_API_KEY: TEST_API_KEY },
      });
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).not.toContain(HEADER_SECRET);
      expect(doctor.stdout).toContain(keyFingerprint(HEADER_SECRET));
      expect(doctor.stdout).toContain('x-portkey-provider');
    }
    for (const request of chatRequests(endpoint)) expect(request.headers['x-portkey-virtual-key']).toBe(HEADER_SECRET);
  });

  it('a run redacts a secret header echoed in a reply and in a refusal', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: {
        sequences: [{ match: { contains: 'echo' }, replies: [{ reasoning: `The gateway told me ${HEADER_SECRET}.`, content: `it is ${HEADER_SECRET}` }] }],
        faults: [
          {
            kind: 'gateway_error',
            when: { prompt: { contains: 'refuse' } },
            status: 400,
            body: { error: { message: `virtual key ${HEADER_SECRET} is not allowed`, type: 'invalid_request_error' } },
          },
        ],
      },
    });
    const dir = tempDir();
    const run = await runGenerate(endpoint.url, [{ prompt: 'echo it' }, { prompt: 'refuse it' }], ['--toolsets', 'todo', '--run-name', 'r', ...HEADERS], {
      dir,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`[secret ${keyFingerprint(HEADER_SECRET)}]`);
    expect(run.stderr).toContain('http-error');
    expectNoSecret(dir, run, HEADER_SECRET);
    expectNoSecret(join(dir, 'data', 'r'), { stdout: '', stderr: '' }, HEADER_SECRET);
  });
});
