// Helpers for the testkit tests: endpoints closed after each test (test/util/scriptedEndpoint.ts, shared
// with every test), `hermes-testkit serve` run in process, an openai@6 client for them, and the tool list
// a request offers.
import { PassThrough, Readable } from 'node:stream';
import OpenAI, { type ClientOptions } from 'openai';
import type { ChatCompletionMessage, ChatCompletionTool } from 'openai/resources/chat/completions';
import { runCli } from '@hermes-datagen/core/internal/cli.js';
import type { ScriptedEndpoint } from '@hermes-datagen/testkit';
import { spec } from '@hermes-datagen/testkit/internal/main.js';
import { REPO_ROOT } from '../util/cli.js';

export { scriptedEndpoint } from '../util/scriptedEndpoint.js';

/** `hermes-testkit serve` with these flags, in process: its base URL (the first line it prints), what it logged, and a SIGTERM. */
export interface ServeInProcess {
  readonly url: string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number>;
}

export async function serveInProcess(flags: readonly string[]): Promise<ServeInProcess> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let logged = '';
  stderr.on('data', (chunk) => (logged += String(chunk)));
  const signal = new AbortController();
  const running = runCli(spec, ['serve', ...flags], { stdout, stderr, stdin: Readable.from([]), env: {}, cwd: REPO_ROOT, signal: signal.signal });
  // Read by a listener, not an async iterator: breaking out of one would destroy the stream serve writes to.
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    stdout.on('data', (chunk) => {
      printed += String(chunk);
      if (printed.includes('\n')) resolve();
    });
    running.then(() => reject(new Error(`serve ended before printing its base URL; it logged: ${logged}`)), reject);
  });
  return {
    url: printed.slice(0, printed.indexOf('\n')),
    stderr: () => logged,
    stop: async () => {
      signal.abort('SIGTERM');
      return running;
    },
  };
}

/** A client without retries unless asked, so each fault shows on the first attempt. */
export function clientFor(target: ScriptedEndpoint, options: ClientOptions = {}): OpenAI {
  return new OpenAI({ baseURL: target.url, apiKey: 'sk-test-key', maxRetries: 0, ...options });
}

export function offer(...names: string[]): ChatCompletionTool[] {
  return names.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }));
}

/** Reasoning fields are provider extensions, absent from the openai types. */
export function extra(message: ChatCompletionMessage, field: string): unknown {
  const fields: Record<string, unknown> = { ...message };
  return fields[field];
}

export const user = (content: string): { role: 'user'; content: string } => ({ role: 'user', content });
