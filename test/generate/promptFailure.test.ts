// Real failures from the real OpenAI client against the scripted endpoint, classified.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedEndpoint, type Script, type ScriptedEndpoint } from '@hermes-datagen/testkit';
import { InvalidReplyError } from '../../packages/generate/src/modelReply.js';
import { promptFailure, PromptSetupError } from '../../packages/generate/src/promptFailure.js';
import { WorkspaceError } from '../../packages/generate/src/tools/workspace.js';
import { TEST_API_KEY } from '../util/secrets.js';

let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

async function failureOf(script: Script, model = 'test-model'): Promise<unknown> {
  endpoint = await startScriptedEndpoint({ script });
  const client = new OpenAI({ baseURL: endpoint.url, apiKey: TEST_API_KEY, maxRetries: 0 });
  return client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).then(
    () => expect.unreachable('the call should fail'),
    (error: unknown) => error,
  );
}

describe('promptFailure', () => {
  it('calls an unreachable endpoint retryable and names the cause', async () => {
    const closed = await startScriptedEndpoint();
    await closed.close();
    const client = new OpenAI({ baseURL: closed.url, apiKey: TEST_API_KEY, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(promptFailure(error)).toEqual({ retryable: true, reason: expect.stringMatching(/^could not reach the endpoint \(ECONNREFUSED\), even after retries; .*hermes-generate doctor/) });
  });

  it.each<[string, Script, RegExp]>([
    ['a rate limit', { faults: [{ kind: 'rate_limit', retry_after_s: 0 }] }, /^rate limited: 429 .*lower --concurrency/],
    ['a server error', { faults: [{ kind: 'server_error' }] }, /^the endpoint failed: 500 /],
    ['an overloaded endpoint', { faults: [{ kind: 'unavailable' }] }, /^the endpoint failed: 503 /],
  ])('calls %s retryable', async (_what, script, reason) => {
    expect(promptFailure(await failureOf(script))).toEqual({ retryable: true, reason: expect.stringMatching(reason) });
  });

  it.each<[string, Script, RegExp]>([
    ['a rejected key', { faults: [{ kind: 'unauthorized' }] }, /^the endpoint refused the key: 401 .*hermes-generate doctor/],
    ['an unknown model', { models: ['other-model'] }, /^not found: 404 .*check --model and --base-url/],
  ])('calls %s a failure that needs a fix', async (_what, script, reason) => {
    expect(promptFailure(await failureOf(script))).toEqual({ retryable: false, reason: expect.stringMatching(reason) });
  });

  it('calls an answer that is not a completion a failure that needs a fix', () => {
    expect(promptFailure(new InvalidReplyError('the endpoint answered without choices'))).toEqual({
      retryable: false,
      reason: "the endpoint answered without choices; run 'hermes-generate doctor' to check the endpoint configuration",
    });
  });

  it('is undefined for an error that is not about the endpoint', () => {
    expect(promptFailure(new TypeError('a bug'))).toBeUndefined();
  });
});

describe('promptFailure of a row that cannot run', () => {
  it('passes the message of a setup problem on, as a failure that needs a fix', () => {
    expect(promptFailure(new PromptSetupError('add a docker_image'))).toEqual({ retryable: false, reason: 'add a docker_image' });
    expect(promptFailure(new WorkspaceError('the row\'s cwd "x" is not an existing directory'))).toEqual({ retryable: false, reason: 'the row\'s cwd "x" is not an existing directory' });
  });
});
