// Real failures from the real chat client against the scripted endpoint, classified by doctor's own
// diagnosis: the error_class is doctor's check id, and the id alone decides the exit code.
import { describe, expect, it } from 'vitest';
import { createChatClient, resolveEndpoint, type Endpoint } from '@hermes-datagen/core/endpoint';
import { startScriptedEndpoint, type Script } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { FAILURE_KINDS, failureExitCode } from '@hermes-datagen/generate/internal/failureKinds.js';
import { InvalidReplyError, readModelReply } from '@hermes-datagen/generate/internal/modelReply.js';
import {
  AgentRunError,
  failureContext,
  failureRecord,
  internalFailure,
  promptFailure,
  PromptSetupError,
  type PromptFailure,
} from '@hermes-datagen/generate/internal/promptFailure.js';
import { WorkspaceError } from '@hermes-datagen/generate/internal/tools/workspace.js';
import { TEST_API_KEY } from '../util/secrets.js';

function endpointAt(baseUrl: string): Promise<Endpoint> {
  return resolveEndpoint({ baseUrl, model: 'test-model' }, { env: { HERMES_API_KEY: TEST_API_KEY }, cwd: process.cwd() });
}

/** What promptFailure makes of the error a chat call against this endpoint ends with (no retries). */
async function failureAt(target: Endpoint): Promise<PromptFailure | undefined> {
  // As the agent loop meets it: the call fails, or its answer cannot be read as a reply.
  const error = await createChatClient(target, { maxRetries: 0 })
    .chat.completions.create({ model: target.model, messages: [{ role: 'user', content: 'hi' }] })
    .then((body: unknown) => {
      readModelReply(body, 0);
      return expect.unreachable('the call should fail');
    })
    .catch((e: unknown) => e);
  return promptFailure(new AgentRunError(error, failureContext(target, 1000)));
}

async function failureOf(script: Script): Promise<PromptFailure | undefined> {
  const endpoint = await scriptedEndpoint({ script });
  return failureAt(await endpointAt(endpoint.url));
}

describe('promptFailure', () => {
  it('calls a refused connection retryable (exit 4), naming the URL', async () => {
    const closed = await startScriptedEndpoint();
    await closed.close();
    expect(await failureAt(await endpointAt(closed.url))).toEqual({
      kind: 'connection-refused',
      retryable: true,
      reason: expect.stringMatching(new RegExp(`^POST ${closed.url}/chat/completions failed: connection refused .*; fix: `)),
    });
  });

  it.each<[string, Script, string, RegExp]>([
    ['a rate limit', { faults: [{ kind: 'rate_limit', retry_after_s: 0 }] }, 'rate-limited', /answered 429 Too Many Requests: "Rate limit reached/],
    ['a rate limit inside a 200', { faults: [{ kind: 'error_in_200' }] }, 'rate-limited', /answered 429 \(inside a 200\): "Provider returned error"/],
    ['a server error', { faults: [{ kind: 'server_error' }] }, 'server-error', /answered 500 Internal Server Error: "The server had an error/],
    ['an overloaded endpoint', { faults: [{ kind: 'unavailable' }] }, 'server-error', /answered 503 Service Unavailable/],
    [
      'an upstream failure reported in a 200',
      { faults: [{ kind: 'no_choices' }] },
      'server-error',
      /answered 502 \(inside a 200\): "Upstream provider returned an empty response"/,
    ],
    ['a body cut short', { faults: [{ kind: 'truncated' }] }, 'malformed-reply', /answered 200 with a body that is not valid JSON/],
    ['a reset connection', { faults: [{ kind: 'drop' }] }, 'connection-reset', /the connection was reset or closed mid-request/],
  ])('calls %s retryable', async (_what, script, kind, reason) => {
    const failure = await failureOf(script);
    expect(failure).toEqual({ kind, retryable: true, reason: expect.stringMatching(reason) });
    expect(failure?.reason).toMatch(/still so after the client's retries/);
    expect(FAILURE_KINDS[kind as keyof typeof FAILURE_KINDS].exit).toBe(4);
  });

  it.each<[string, Script, string, RegExp]>([
    [
      'a rejected key',
      { faults: [{ kind: 'unauthorized' }] },
      'unauthorized',
      /answered 401 Unauthorized: "Incorrect API key provided.": the gateway rejected the key in \$HERMES_API_KEY \(fingerprint [0-9a-f]{8}\)/,
    ],
    ['an unknown model', { models: ['other-model'] }, 'model-not-found', /the gateway does not offer model test-model/],
    ['an HTML page', { faults: [{ kind: 'html' }] }, 'not-an-api', /answered 200 with an HTML page/],
  ])('calls %s a failure that needs a fix (exit 1)', async (_what, script, kind, reason) => {
    expect(await failureOf(script)).toEqual({ kind, retryable: false, reason: expect.stringMatching(reason) });
  });

  it('calls a doubled /v1 a wrong path', async () => {
    const endpoint = await scriptedEndpoint();
    expect(await failureAt(await endpointAt(`${endpoint.url}/v1`))).toMatchObject({ kind: 'path-404', retryable: false });
  });

  it('calls a completion without a message a failure that needs a fix', () => {
    const context = failureContext(
      { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'HERMES_API_KEY', apiKey: { fingerprint: '00000000' } } as Endpoint,
      1000,
    );
    const error = new InvalidReplyError('the endpoint answered with a choice that has no message', { choices: [{ index: 0 }] });
    expect(promptFailure(new AgentRunError(error, context))).toMatchObject({ kind: 'no-choices', retryable: false });
  });

  it('is undefined for an error that is not about the endpoint (a bug: internalFailure, with its stack)', () => {
    const context = failureContext({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'K', apiKey: { fingerprint: '0' } } as Endpoint, 1000);
    const bug = new TypeError('a bug');
    expect(promptFailure(new AgentRunError(bug, context))).toBeUndefined();
    expect(promptFailure(bug)).toBeUndefined();
    expect(internalFailure(new AgentRunError(bug, context))).toEqual({
      kind: 'internal',
      retryable: false,
      reason: expect.stringContaining('TypeError: a bug\n    at '),
    });
  });
});

describe('promptFailure of a row that cannot run', () => {
  it('passes the message of a setup problem on, as a failure that needs a fix', () => {
    expect(promptFailure(new PromptSetupError('add a docker_image'))).toEqual({ kind: 'prompt-setup', retryable: false, reason: 'add a docker_image' });
    expect(promptFailure(new WorkspaceError('the row\'s cwd "x" is not an existing directory'))).toEqual({
      kind: 'prompt-setup',
      retryable: false,
      reason: 'the row\'s cwd "x" is not an existing directory',
    });
  });
});

describe('failureExitCode', () => {
  it('is 1 when any failure needs a fix, else 4; 0 without failures', () => {
    expect(failureExitCode([])).toBe(0);
    expect(failureExitCode(['rate-limited', 'timeout', 'connection-reset'])).toBe(4);
    expect(failureExitCode(['rate-limited', 'unauthorized'])).toBe(1);
    expect(failureExitCode(['path-404'])).toBe(1);
  });
});

describe('failureRecord', () => {
  it("holds the prompt's place, id, class and reason (the key redacted), and its input line", async () => {
    const target = await endpointAt('http://127.0.0.1:9/v1');
    const record = failureRecord(
      { id: 'p1', promptIndex: 1, place: { source: 'in.jsonl', line: 2 }, raw: '{"prompt":"x","id":"p1"}' },
      { kind: 'unauthorized', retryable: false, reason: `refused ${TEST_API_KEY}` },
      target.apiKey,
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(record).toEqual({
      id: 'p1',
      prompt_index: 1,
      source: 'in.jsonl',
      line: 2,
      error_class: 'unauthorized',
      retryable: false,
      reason: expect.stringMatching(/^refused \[api key [0-9a-f]{8}\]$/),
      failed_at: '2026-01-01T00:00:00.000Z',
      raw: '{"prompt":"x","id":"p1"}',
    });
  });
});
