// Helpers for the testkit tests: endpoints closed after each test, an openai@6 client for them, and the
// tool list a request offers.
import OpenAI, { type ClientOptions } from 'openai';
import type { ChatCompletionMessage, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterEach } from 'vitest';
import { startScriptedEndpoint, type ScriptedEndpoint, type ScriptedEndpointOptions } from '@hermes-datagen/testkit';

const open: ScriptedEndpoint[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((endpoint) => endpoint.close()));
});

/** A running endpoint, closed after the current test. */
export async function endpoint(options: ScriptedEndpointOptions = {}): Promise<ScriptedEndpoint> {
  const started = await startScriptedEndpoint(options);
  open.push(started);
  return started;
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
