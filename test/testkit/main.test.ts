import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { ExitCode } from '@hermes-datagen/core';
import { spec } from '@hermes-datagen/testkit/internal/main.js';
import { binPath, REPO_ROOT, runInProcess } from '../util/cli.js';
import { user, serveInProcess } from './endpoint.js';

const SCRIPT = join(REPO_ROOT, 'fixtures/testkit/coding-task.json');

/** Resolves with the first line a stream prints. */
async function firstLine(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (text.includes('\n')) return text.slice(0, text.indexOf('\n'));
  }
  throw new Error(`the stream ended before a whole line: ${JSON.stringify(text)}`);
}

describe('hermes-testkit serve (in process)', () => {
  it('prints its base URL, answers until the signal, then closes', async () => {
    const serve = await serveInProcess(['--base-path', '/api/v1', '--latency-ms', '0']);
    const { url } = serve;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    const models = await new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0 }).models.list();
    expect(models.data).toHaveLength(1);
    expect(await serve.stop()).toBe(ExitCode.terminated);
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });

  it('refuses to start on a missing key variable or a bad script (usage errors)', async () => {
    const noKey = await runInProcess(spec, ['serve', '--api-key-env', 'TESTKIT_KEY'], { env: {} });
    expect(noKey.code).toBe(ExitCode.usage);
    expect(noKey.stderr).toMatch(/--api-key-env TESTKIT_KEY: the variable is not set or empty; export it/);
    const badScript = await runInProcess(spec, ['serve', '--script', 'no/such/script.json']);
    expect(badScript.code).toBe(ExitCode.usage);
    expect(badScript.stderr).toMatch(/cannot read --script no\/such\/script\.json \(ENOENT\)/);
    expect(badScript.stdout).toBe('');
  });

  it('refuses a port in use with a usage error naming it, not a crash', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const res = await runInProcess(spec, ['serve', '--port', String(port)]);
      expect(res.code).toBe(ExitCode.usage);
      expect(res.stderr).toContain(`hermes-testkit: error: --port ${port}: 127.0.0.1:${port} is in use`);
      expect(res.stdout).toBe('');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});

describe('hermes-testkit serve (the bin)', () => {
  it('serves the example script with a key from the environment and stops on SIGTERM', async () => {
    const key = 'sk-cli-secret-4242';
    const child = spawn(process.execPath, [binPath('testkit', 'hermes-testkit'), 'serve', '--script', SCRIPT, '--api-key-env', 'TESTKIT_KEY', '--port', '0'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', TESTKIT_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const exited = once(child, 'exit');
    try {
      const url = await firstLine(child.stdout);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const client = new OpenAI({ baseURL: url, apiKey: key, maxRetries: 0 });
      expect((await client.models.list()).data.map((m) => m.id)).toEqual(['hermes-testkit-scripted']);
      const reply = await client.chat.completions.create({ model: 'hermes-testkit-scripted', messages: [user('Print the first ten Fibonacci numbers')] });
      const call = reply.choices[0]?.message.tool_calls?.[0];
      expect(call?.type === 'function' && call.function.name).toBe('write_file');
      const wrongKey = await new OpenAI({ baseURL: url, apiKey: 'sk-wrong', maxRetries: 0 }).models.list().catch((e: unknown) => e);
      expect(wrongKey).toBeInstanceOf(OpenAI.AuthenticationError);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(ExitCode.terminated);
    expect(stderr.join('')).toContain('serving a scripted endpoint (not a model)');
    expect(stderr.join('')).not.toContain(key);
  });
});
