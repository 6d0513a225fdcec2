// The agent loop against the real scripted endpoint over HTTP, with the real OpenAI client. The
// tools here are a recording stand-in: the real tools run in the end-to-end tests.
import { getEventListeners } from 'node:events';
import OpenAI, { APIConnectionTimeoutError } from 'openai';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatMessage, ToolDefinition } from '@hermes-datagen/core';
import type { ReasoningField, Script } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { runAgent, type AgentInput, type AgentRun } from '@hermes-datagen/generate/internal/agentLoop.js';
import { MAX_TURNS_MESSAGE } from '@hermes-datagen/generate/internal/maxTurns.js';
import { InvalidReplyError } from '@hermes-datagen/generate/internal/modelReply.js';
import { TEST_API_KEY } from '../util/secrets.js';

const TOOLS: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'terminal', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
];
const KNOWN = new Set(['read_file', 'terminal', 'web_search', 'write_file']);

interface Harness {
  run: AgentRun;
  toolRuns: { name: string; args: Record<string, unknown> }[];
  bodies: Record<string, unknown>[];
}

async function runScript(script: Script, overrides: Partial<AgentInput> = {}): Promise<Harness> {
  const endpoint = await scriptedEndpoint({ script, apiKey: TEST_API_KEY });
  const toolRuns: Harness['toolRuns'] = [];
  const run = await runAgent({
    prompt: 'Count the lines of notes.txt',
    model: 'test-model',
    client: new OpenAI({ baseURL: endpoint.url, apiKey: TEST_API_KEY, maxRetries: 0 }),
    tools: TOOLS,
    knownToolNames: KNOWN,
    runTool: (name, args) => {
      toolRuns.push({ name, args });
      return Promise.resolve(JSON.stringify({ output: `ran ${name}`, exit_code: 0, error: null }));
    },
    maxTurns: 10,
    requestTimeoutMs: 30_000,
    signal: new AbortController().signal,
    ...overrides,
  });
  const bodies = endpoint.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body as Record<string, unknown>);
  return { run, toolRuns, bodies };
}

const sequence = (...replies: NonNullable<Script['sequences']>[number]['replies']): Script => ({ sequences: [{ match: { contains: 'notes.txt' }, replies }] });
const assistants = (messages: ChatMessage[]): AssistantMessage[] => messages.filter((m): m is AssistantMessage => m.role === 'assistant');

describe('runAgent', () => {
  it('runs the tools the model calls and ends at its final answer', async () => {
    const { run, toolRuns, bodies } = await runScript(
      sequence(
        {
          reasoning: 'Read it first.',
          tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
          usage: { prompt_tokens: 10, completion_tokens: 5 },
        },
        { reasoning: 'Now count.', content: 'It has 3 lines.', usage: { prompt_tokens: 20, completion_tokens: 7 } },
      ),
      { reasoningEffort: 'high' },
    );
    expect(toolRuns).toEqual([{ name: 'read_file', args: { path: 'notes.txt' } }]);
    expect(run).toMatchObject({ completed: true, partial: false, apiCalls: 2, unknownTools: [] });
    expect(run.usage).toEqual({ prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 });
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(run.messages[0]).toEqual({ role: 'user', content: 'Count the lines of notes.txt' });
    const call = assistants(run.messages)[0]?.tool_calls?.[0];
    expect(run.messages[2]).toMatchObject({
      role: 'tool',
      tool_call_id: call?.id,
      content: JSON.stringify({ output: 'ran read_file', exit_code: 0, error: null }),
    });
    expect(assistants(run.messages)[1]).toMatchObject({ content: 'It has 3 lines.', reasoning: 'Now count.' });
    // Every request offers the tools and carries the reasoning effort; the second carries the history.
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body['reasoning_effort']).toBe('high');
      expect((body['tools'] as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['read_file', 'terminal']);
    }
    expect((bodies[1]!['messages'] as { role: string }[]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('sends no reasoning_effort when none is asked for', async () => {
    const { bodies } = await runScript(sequence({ content: 'Done.' }));
    expect(bodies[0]).not.toHaveProperty('reasoning_effort');
  });

  it('at --max-turns asks for a summary in one tool-less call and keeps it without think blocks', async () => {
    const calling = { tool_calls: [{ name: 'terminal', arguments: { command: 'wc -l notes.txt' } }] };
    const { run, bodies } = await runScript(
      sequence(calling, calling, { content: '<think>\nwrap up\n</think>\nI counted the lines: 3.', reasoning_field: 'inline_think' }),
      { maxTurns: 2 },
    );
    expect(run).toMatchObject({ completed: false, partial: false, apiCalls: 2 });
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user', 'assistant']);
    expect(run.messages[5]).toEqual({ role: 'user', content: MAX_TURNS_MESSAGE });
    expect(run.messages[6]).toEqual({ role: 'assistant', content: 'I counted the lines: 3.' });
    expect(bodies).toHaveLength(3);
    expect(bodies[2]).not.toHaveProperty('tools');
    const lastMessages = bodies[2]?.['messages'] as { role: string; content: string }[];
    expect(lastMessages.at(-1)).toEqual({ role: 'user', content: MAX_TURNS_MESSAGE });
  });

  it.each<[ReasoningField]>([['reasoning'], ['reasoning_content'], ['reasoning_details'], ['thinking'], ['inline_think'], ['inline_scratchpad']])(
    'takes reasoning sent as %s into the message reasoning and out of its content',
    async (field) => {
      const { run } = await runScript(sequence({ reasoning: 'Three lines, I think.', reasoning_field: field, content: 'It has 3 lines.' }));
      expect(assistants(run.messages)[0]).toMatchObject({ reasoning: 'Three lines, I think.', content: 'It has 3 lines.' });
    },
  );

  it('answers an unknown tool name with an error result, records it, and stops after three bad replies in a row', async () => {
    const hallucinated = { tool_calls: [{ name: 'web_search_v2', arguments: { query: 'x' } }] };
    const { run, toolRuns } = await runScript(sequence(hallucinated, hallucinated, hallucinated, { content: 'never reached' }));
    expect(toolRuns).toEqual([]);
    expect(run).toMatchObject({ completed: false, partial: true, apiCalls: 3, unknownTools: ['web_search_v2'] });
    const results = run.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content as string) as { error: string });
    expect(results).toHaveLength(3);
    expect(results[0]?.error).toBe("tool 'web_search_v2' does not exist. Available tools: read_file, terminal");
  });

  it('tells a registry tool that was not offered apart from an unknown one', async () => {
    const { run } = await runScript(sequence({ tool_calls: [{ name: 'web_search', arguments: { query: 'x' } }] }, { content: 'ok' }));
    expect(run.unknownTools).toEqual([]);
    expect(JSON.parse(run.messages[2]?.content as string)).toEqual({
      error: "tool 'web_search' is not available in this task. Available tools: read_file, terminal",
    });
    expect(run).toMatchObject({ completed: true, partial: false });
  });

  it('answers invalid JSON arguments with an error result, and a good reply resets the strikes', async () => {
    const broken = { tool_calls: [{ name: 'terminal', arguments: '{"command": "ls"' }] };
    const good = { tool_calls: [{ name: 'terminal', arguments: { command: 'ls' } }] };
    const { run, toolRuns } = await runScript(sequence(broken, broken, good, broken, broken, { content: 'Listed.' }));
    expect(run).toMatchObject({ completed: true, partial: false, apiCalls: 6 });
    expect(toolRuns).toEqual([{ name: 'terminal', args: { command: 'ls' } }]);
    const first = JSON.parse(run.messages[2]?.content as string) as { error: string };
    expect(first.error).toMatch(/^the arguments of terminal are not a JSON object \(invalid JSON: .+\); send them again as one JSON object/);
  });

  it('runs the valid calls of a reply that also holds a bad one, and counts the reply as a strike', async () => {
    const mixed = {
      tool_calls: [
        { name: 'terminal', arguments: { command: 'ls' } },
        { name: 'nope', arguments: {} },
      ],
    };
    const { run, toolRuns } = await runScript(sequence(mixed, mixed, mixed));
    expect(toolRuns).toHaveLength(3);
    expect(run).toMatchObject({ partial: true, apiCalls: 3, unknownTools: ['nope'] });
  });

  it('leaves out a reply cut off by the length limit and marks the run partial', async () => {
    const { run } = await runScript(
      sequence(
        { tool_calls: [{ name: 'terminal', arguments: { command: 'ls' } }] },
        { tool_calls: [{ name: 'terminal', arguments: '{"command": "cat notes' }], finish_reason: 'length' },
      ),
    );
    expect(run).toMatchObject({ completed: false, partial: true, apiCalls: 2 });
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('fails the run when the endpoint answers without choices', async () => {
    await expect(runScript({ faults: [{ kind: 'no_choices' }] })).rejects.toThrow(InvalidReplyError);
    await expect(runScript({ faults: [{ kind: 'html' }] })).rejects.toThrow(/answered with text, not a chat completion \(it starts "<!DOCTYPE html>/);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    const pending = runScript(sequence({ content: 'late' }), { signal: controller.signal });
    controller.abort('SIGINT');
    await expect(pending).rejects.toThrow();
  });

  it('answers a tool call with "name": null as an invalid call (a strike with an error result), never as a finished turn', async () => {
    const nameless = { tool_calls: [{ name: null, arguments: { path: 'notes.txt' } }] };
    const { run, toolRuns } = await runScript(sequence(nameless, { content: 'It has 3 lines.' }));
    expect(toolRuns).toEqual([]);
    expect(run).toMatchObject({ completed: true, partial: false, apiCalls: 2, unknownTools: [] });
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(JSON.parse(run.messages[2]?.content as string)).toEqual({
      error: 'the tool name was empty; call one of the available tools by its name. Available tools: read_file, terminal',
    });
    const { run: struck } = await runScript(sequence(nameless, nameless, nameless, { content: 'never reached' }));
    expect(struck).toMatchObject({ completed: false, partial: true, apiCalls: 3 });
  });

  it.each([['content_filter'], ['error'], ['MALFORMED_FUNCTION_CALL']] as const)(
    'never calls a run completed when a reply ends with finish_reason %s',
    async (reason) => {
      const { run } = await runScript(sequence({ content: 'I cannot', finish_reason: reason }));
      expect(run).toMatchObject({ completed: false, partial: true, apiCalls: 1 });
      expect(run.messages.map((m) => m.role)).toEqual(['user']);
    },
  );

  it("leaves no listener on the run's signal once a prompt is over, however many calls it made or how it ended", async () => {
    const signal = new AbortController().signal;
    const call = { tool_calls: [{ name: 'terminal', arguments: { command: 'wc -l notes.txt' } }] };
    const { run } = await runScript(sequence(call, call, call, { content: 'It has 3 lines.' }), { signal });
    expect(run.apiCalls).toBe(4);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await expect(runScript({ faults: [{ kind: 'timeout' }] }, { signal, requestTimeoutMs: 100 })).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('bounds each HTTP attempt of a model call by requestTimeoutMs: a timeout, not a hang', async () => {
    const error = await runScript({ faults: [{ kind: 'timeout' }] }, { requestTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });
});
