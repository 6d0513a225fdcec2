// hermes-generate doctor: each failure users meet with their gateway, diagnosed against a real endpoint
// (the scripted one, a closed port, an unresolvable name, a dead local proxy), with its exit code,
// its cause and its fix; and the key never in the output.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFingerprint, type CliSpec } from '@hermes-datagen/core';
import { startScriptedEndpoint, type ScriptedEndpoint, type ScriptedEndpointOptions } from '@hermes-datagen/testkit';
import { doctorCommand } from '@hermes-datagen/generate/internal/doctor/doctorCommand.js';
import { runInProcess, tempDir, writeFiles, type CliResult } from '../../util/cli.js';
import { TEST_API_KEY } from '../../util/secrets.js';

const spec: CliSpec = { name: 'hermes-generate', summary: 'doctor under test', commands: [doctorCommand] };

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function endpoint(options: ScriptedEndpointOptions = {}): Promise<ScriptedEndpoint> {
  const started = await startScriptedEndpoint(options);
  open.push(started);
  return started;
}

/** A port that was free a moment ago and has nothing listening now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

interface Report {
  ok: boolean;
  exit_code: number;
  configuration: Record<string, unknown>;
  checks: { id: string; status: string; message: string; fix?: string }[];
}

/** Runs doctor (always also with --json) and checks, for every run, that the key appears nowhere. */
async function doctor(argv: string[], env: Record<string, string> = {}, cwd?: string): Promise<{ text: CliResult; report: Report }> {
  const fullEnv = { HERMES_API_KEY: TEST_API_KEY, ...env };
  const options = { env: fullEnv, ...(cwd ? { cwd } : {}) };
  const text = await runInProcess(spec, ['doctor', '--timeout', '3', ...argv], options);
  const json = await runInProcess(spec, ['doctor', '--timeout', '3', '--json', ...argv], options);
  for (const output of [text.stdout, text.stderr, json.stdout, json.stderr]) {
    expect(output).not.toContain(TEST_API_KEY);
    expect(output).not.toContain(TEST_API_KEY.slice(8, 30));
  }
  expect(json.stderr).toBe('');
  const report = JSON.parse(json.stdout) as Report;
  expect(report.exit_code).toBe(json.code);
  expect(text.code).toBe(json.code);
  return { text, report };
}

function failed(report: Report): { id: string; message: string; fix?: string }[] {
  return report.checks.filter((c) => c.status === 'fail');
}

function theFailure(report: Report, id: string): { message: string; fix?: string } {
  const found = failed(report);
  expect(found.map((c) => c.id)).toContain(id);
  return found.find((c) => c.id === id)!;
}

describe('healthy', () => {
  it('exits 0 and says what it checked, with the key only as variable and fingerprint', async () => {
    const target = await endpoint({ apiKey: TEST_API_KEY });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'test-model']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`  base URL  ${target.url}  (from --base-url)`);
    expect(text.stdout).toContain('  model     test-model  (from --model)');
    expect(text.stdout).toContain(`  key       $HERMES_API_KEY, fingerprint ${keyFingerprint(TEST_API_KEY)}  (from $HERMES_API_KEY)`);
    expect(text.stdout).toMatch(new RegExp(`ok {4}POST ${target.url}/chat/completions answered 200 with 1 choice in \\d+ ms \\(model test-model\\)`));
    expect(text.stdout.trimEnd().split('\n').pop()).toBe('healthy: the endpoint answered as an OpenAI-compatible API (exit 0)');
    expect(report.ok).toBe(true);
    expect(report.configuration['api_key']).toEqual({
      variable: 'HERMES_API_KEY',
      fingerprint: keyFingerprint(TEST_API_KEY),
      source: 'env',
      from: 'HERMES_API_KEY',
    });
    // The request a run sends first (test/e2e/generateDoctorRequest.test.ts compares them): the default
    // distribution's tools, and no max_tokens, which a run never sends.
    const chats = target.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(chats).toHaveLength(2);
    expect(chats[0]!.body).toMatchObject({ model: 'test-model' });
    expect(chats[0]!.body).not.toHaveProperty('max_tokens');
    expect((chats[0]!.body as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  });
});

describe('configuration wrong: exit 2, no request made', () => {
  const cases: { name: string; id: string; env: Record<string, string>; argv?: string[]; says: string }[] = [
    {
      name: 'key variable unset',
      id: 'key-unset',
      env: { HERMES_API_KEY: '' },
      argv: ['--api-key-env', 'TAOTOKEN_API_KEY'],
      says: '$TAOTOKEN_API_KEY (named by --api-key-env) is not set: export TAOTOKEN_API_KEY=...',
    },
    { name: 'key variable empty', id: 'key-empty', env: { HERMES_API_KEY: '' }, says: '$HERMES_API_KEY is set but empty' },
    {
      name: 'key with a trailing newline',
      id: 'key-whitespace',
      env: { HERMES_API_KEY: `${TEST_API_KEY}\n` },
      says: 'the API key in $HERMES_API_KEY ends with a newline',
    },
    {
      name: 'key with a trailing space',
      id: 'key-whitespace',
      env: { HERMES_API_KEY: `${TEST_API_KEY} ` },
      says: 'the API key in $HERMES_API_KEY ends with a space',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const target = await endpoint();
      const { text, report } = await doctor(['--base-url', target.url, '--model', 'm', ...(c.argv ?? [])], c.env);
      expect(text.code).toBe(2);
      expect(theFailure(report, c.id).message).toContain(c.says);
      expect(text.stdout).toContain(`FAIL  ${theFailure(report, c.id).message}`);
      expect(text.stdout.trimEnd().split('\n').pop()).toBe('the configuration is wrong; no request was made (exit 2)');
      expect(target.requests).toEqual([]);
    });
  }

  it('a base URL with query parameters', async () => {
    const target = await endpoint();
    const { text, report } = await doctor(['--base-url', `${target.url}?utm_source=newsletter&utm_campaign=x`, '--model', 'm']);
    expect(text.code).toBe(2);
    const problem = theFailure(report, 'base-url-query');
    expect(problem.message).toContain('query parameters (utm_source, utm_campaign)');
    expect(problem.message).toContain(`use ${target.url}`);
    expect(target.requests).toEqual([]);
  });

  it('a --timeout that is not a positive number', async () => {
    const result = await runInProcess(spec, ['doctor', '--timeout', '0', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm'], {
      env: { HERMES_API_KEY: TEST_API_KEY },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--timeout must be a positive number of seconds, not 0');
  });

  it('a config file with the key written into it', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'hermes.yaml': `providers:\n  gw:\n    base_url: http://127.0.0.1:1/v1\n    api_key: ${TEST_API_KEY}\n` });
    const { text, report } = await doctor(['--config', 'hermes.yaml', '--model', 'm'], {}, dir);
    expect(text.code).toBe(2);
    expect(theFailure(report, 'config-invalid').message).toContain('never write the key into a config file');
  });
});

describe('the key is refused', () => {
  it('401: names the variable, fingerprint and source, and the inheritance trap', async () => {
    const target = await endpoint({ apiKey: 'sk-the-gateway-expects-another-key' });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm']);
    expect(text.code).toBe(1);
    const failure = theFailure(report, 'unauthorized');
    expect(failure.message).toContain('answered 401 Unauthorized: "Incorrect API key provided."');
    expect(failure.message).toContain(`$HERMES_API_KEY (fingerprint ${keyFingerprint(TEST_API_KEY)}, from $HERMES_API_KEY)`);
    expect(failure.fix).toContain('did not inherit the variable (nohup, cron, a background start)');
    expect(text.stdout).toContain(`      fix: ${failure.fix}`);
  });

  it('an OAuth-style error says to use an API key (auth_mode: api_key)', async () => {
    const target = await endpoint({ script: { faults: [{ kind: 'oauth_expired' }] } });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm']);
    expect(text.code).toBe(1);
    const failure = theFailure(report, 'oauth');
    expect(failure.message).toContain('OAuth error: "OAuth token expired"');
    expect(failure.fix).toContain('use an API key, not an OAuth token');
    expect(failure.fix).toContain('auth_mode: api_key');
  });
});

describe('model not found', () => {
  const models = ['anthropic/claude-sonnet-4-6', 'anthropic/claude-opus-4-1', 'openai/gpt-4o'];

  it('lists the closest models the gateway offers (GET /models)', async () => {
    const target = await endpoint({ script: { models } });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'anthropic/claude-sonet-4-6']);
    expect(text.code).toBe(1);
    const failure = theFailure(report, 'model-not-found');
    expect(failure.message).toContain("the gateway does not offer model anthropic/claude-sonet-4-6: \"The model 'anthropic/claude-sonet-4-6' does not exist");
    expect(failure.message).toContain('the closest models it lists: anthropic/claude-sonnet-4-6');
    expect(failure.fix).toContain('pass --model anthropic/claude-sonnet-4-6');
    expect(target.requests.some((r) => r.method === 'GET' && r.path.endsWith('/models'))).toBe(true);
  });

  it('a provider prefix sent upstream because no provider of that name is configured', async () => {
    const target = await endpoint({ script: { models } });
    const { report } = await doctor(['--base-url', target.url, '--model', 'taotoken/anthropic/claude-sonnet-4-6']);
    const failure = theFailure(report, 'model-not-found');
    expect(failure.fix).toContain(
      'the gateway names it anthropic/claude-sonnet-4-6: "taotoken/" was sent as part of the model because no provider of that name is in --config',
    );
  });
});

describe('404 from the path: /v1 doubled or missing, both variants tried', () => {
  it('/v1 given twice', async () => {
    const target = await endpoint({ basePath: '/v1' });
    const { text, report } = await doctor(['--base-url', `${target.url}/v1`, '--model', 'm']);
    expect(text.code).toBe(1);
    const failure = theFailure(report, 'path-404');
    expect(failure.message).toContain(`POST ${target.url}/v1/chat/completions answered 404`);
    expect(failure.message).toContain(`with ${target.url} the gateway answers (200 OK): /v1 was given twice`);
    expect(failure.fix).toBe(`set the base URL to ${target.url} (the client appends /chat/completions itself)`);
  });

  it('/v1 missing', async () => {
    const target = await endpoint({ basePath: '/v1' });
    const origin = target.url.replace(/\/v1$/, '');
    const { report } = await doctor(['--base-url', origin, '--model', 'm']);
    const failure = theFailure(report, 'path-404');
    expect(failure.message).toContain(`with ${target.url} the gateway answers (200 OK): the gateway's API lives under /v1, which the base URL lacks`);
    expect(failure.fix).toBe(`set the base URL to ${target.url} (the client appends /chat/completions itself)`);
  });

  it('a /v1 the gateway does not use (its API is at /api)', async () => {
    const target = await endpoint({ basePath: '/api' });
    const { report } = await doctor(['--base-url', `${target.url}/v1`, '--model', 'm']);
    expect(theFailure(report, 'path-404').fix).toBe(`set the base URL to ${target.url} (the client appends /chat/completions itself)`);
  });

  it('neither variant answers', async () => {
    const target = await endpoint({ basePath: '/gateway/openai' });
    const { report } = await doctor(['--base-url', `${target.url.replace(/\/gateway\/openai$/, '')}/wrong`, '--model', 'm']);
    const failure = theFailure(report, 'path-404');
    expect(failure.message).toContain('fails the same way (404 Not Found)');
    expect(failure.fix).toContain("the base URL's path is wrong");
  });

  it('the path fixed, the next problem is reported too', async () => {
    const target = await endpoint({ basePath: '/v1', apiKey: 'sk-the-gateway-expects-another-key' });
    const { report } = await doctor(['--base-url', `${target.url}/v1`, '--model', 'm']);
    expect(failed(report).map((c) => c.id)).toEqual(['path-404', 'unauthorized']);
    expect(theFailure(report, 'unauthorized').message).toMatch(new RegExp(`^with ${target.url}: POST`));
  });
});

describe('not an OpenAI-compatible answer ("reading choices")', () => {
  it('an HTML page', async () => {
    const target = await endpoint({ script: { faults: [{ kind: 'html' }] } });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm']);
    expect(text.code).toBe(1);
    const failure = theFailure(report, 'not-an-api');
    expect(failure.message).toContain('answered 200 with an HTML page, not an OpenAI-compatible API; clients then fail "reading choices"');
    expect(failure.fix).toContain("point the base URL at the gateway's API, not its website");
  });

  it('an upstream failure reported in a 200 ({"error": {"code": 502}}) is a server error: retry later', async () => {
    const target = await endpoint({ script: { faults: [{ kind: 'no_choices' }] } });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm']);
    expect(text.code).toBe(4);
    const failure = theFailure(report, 'server-error');
    expect(failure.message).toContain('answered 502 (inside a 200): "Upstream provider returned an empty response"');
  });

  it('a rate limit reported in a 200 ({"error": {"code": 429}}) is a rate limit', async () => {
    const target = await endpoint({ script: { faults: [{ kind: 'error_in_200' }] } });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm']);
    expect(text.code).toBe(4);
    expect(theFailure(report, 'rate-limited').message).toContain('answered 429 (inside a 200): "Provider returned error"');
  });

  it('a body cut short is a malformed reply: retry later, no /v1 variant tried', async () => {
    const target = await endpoint({ script: { faults: [{ kind: 'truncated' }] } });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm']);
    expect(text.code).toBe(4);
    expect(failed(report).map((c) => c.id)).toEqual(['malformed-reply']);
    expect(theFailure(report, 'malformed-reply').message).toContain('answered 200 with a body that is not valid JSON');
  });
});

describe('rate limited', () => {
  it("429 with the server's own Retry-After, and the cap a run applies", async () => {
    const target = await endpoint({ script: { faults: [{ kind: 'rate_limit', retry_after_s: 3600 }] } });
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm']);
    expect(text.code).toBe(4);
    // Reported, not waited for: a doctor that slept the hour would never reach this line.
    const failure = theFailure(report, 'rate-limited');
    expect(failure.message).toContain('answered 429 Too Many Requests');
    expect(failure.message).toContain('it asks to wait 3600 s (Retry-After) (hermes-generate waits at most 30 s before a retry)');
    expect(failure.fix).toContain('--rpm N (requests a minute) and --tpm N (tokens a minute)');
    expect(failure.fix).toContain('lower --concurrency');
  });
});

describe('unreachable', () => {
  it('connection refused on a closed port', async () => {
    const port = await closedPort();
    const { text, report } = await doctor(['--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm']);
    expect(text.code).toBe(4);
    const failure = theFailure(report, 'connection-refused');
    expect(failure.message).toContain(`connection refused by 127.0.0.1:${port} (nothing listens there)`);
  });

  it('a host name that does not resolve', async () => {
    const { text, report } = await doctor(['--base-url', 'http://gateway.invalid/v1', '--model', 'm']);
    expect(text.code).toBe(1);
    const failure = theFailure(report, 'dns');
    expect(failure.message).toMatch(/the host name gateway\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN|EAI_NONAME)\)/);
    expect(failure.fix).toContain("check the spelling of the base URL's host");
  });

  it('a server that never answers, with a short --timeout', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    open.push({
      close: () =>
        new Promise<void>((done) => {
          silent.closeAllConnections();
          silent.close(() => done());
        }),
    });
    const port = (silent.address() as AddressInfo).port;
    const result = await runInProcess(spec, ['doctor', '--timeout', '0.5', '--json', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm'], {
      env: { HERMES_API_KEY: TEST_API_KEY },
    });
    expect(result.code).toBe(4);
    const report = JSON.parse(result.stdout) as Report;
    const failure = theFailure(report, 'timeout');
    expect(failure.message).toContain('got no answer within 0.5 s');
    expect(failure.fix).toContain('raise --timeout');
  });

  it('a proxy variable pointing at a dead local proxy: "local proxy failed"', async () => {
    const port = await closedPort();
    const { text, report } = await doctor(['--base-url', 'https://gateway.invalid/api', '--model', 'm'], { HTTPS_PROXY: `http://127.0.0.1:${port}` });
    expect(text.code).toBe(4);
    const failure = theFailure(report, 'proxy-dead');
    expect(failure.message).toContain(`local proxy failed: HTTPS_PROXY=http://127.0.0.1:${port} (127.0.0.1:${port}) refuses connections (connection refused)`);
    expect(failure.message).toContain('requests to gateway.invalid go through it');
    expect(failure.fix).toContain('start the proxy, or unset HTTPS_PROXY');
    expect(text.stdout).toContain(`  proxy     HTTPS_PROXY=http://127.0.0.1:${port}`);
  });

  it('a dead proxy the endpoint does not use is a warning, not a failure', async () => {
    const target = await endpoint();
    const port = await closedPort();
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm'], { https_proxy: `http://127.0.0.1:${port}` });
    expect(text.code).toBe(0);
    const warning = report.checks.find((c) => c.id === 'proxy-dead');
    expect(warning?.status).toBe('warn');
    expect(warning?.message).toContain('local proxy failed');
    expect(warning?.message).toContain('other tools and sub-processes that read https_proxy will fail');
  });
});

describe('environment warnings', () => {
  it('both OPENAI_* and ANTHROPIC_* variables set: warn, choose one', async () => {
    const target = await endpoint();
    const { text, report } = await doctor(['--base-url', target.url, '--model', 'm'], {
      OPENAI_API_KEY: 'sk-openai-FAKE-0000000000',
      ANTHROPIC_API_KEY: 'sk-ant-FAKE-1111111111',
    });
    expect(text.code).toBe(0);
    const warning = report.checks.find((c) => c.id === 'openai-and-anthropic');
    expect(warning?.status).toBe('warn');
    expect(warning?.message).toContain('choose one');
    expect(text.stdout).toContain('warn  both OPENAI_* (OPENAI_API_KEY) and ANTHROPIC_* (ANTHROPIC_API_KEY)');
    expect(text.stdout).not.toContain('sk-ant-FAKE-1111111111');
    expect(text.stdout).not.toContain('sk-openai-FAKE-0000000000');
  });
});

describe('the key never appears, even when the gateway echoes it', () => {
  it('redacts a key echoed back in an error body', async () => {
    const echo = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: `invalid key: ${req.headers.authorization ?? ''}`, type: 'invalid_request_error', code: 'invalid_api_key' } }),
        );
      });
    });
    await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
    open.push({
      close: () =>
        new Promise<void>((done) => {
          echo.closeAllConnections();
          echo.close(() => done());
        }),
    });
    const port = (echo.address() as AddressInfo).port;
    const { text, report } = await doctor(['--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm']);
    expect(text.code).toBe(1);
    expect(theFailure(report, 'unauthorized').message).toContain(`invalid key: Bearer [api key ${keyFingerprint(TEST_API_KEY)}]`);
  });
});
