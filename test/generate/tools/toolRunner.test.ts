import { loadToolRegistry, UsageError } from '@hermes-datagen/core';
import { parseToolRegistry } from '@hermes-datagen/core/internal/registry.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { executeTool, IMPLEMENTED_TOOLS, offeredTools, TOOL_DEADLINE_MARGIN_MS, toolDefinition } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { ToolError } from '@hermes-datagen/generate/internal/tools/toolError.js';
import { ToolProcesses } from '@hermes-datagen/generate/internal/tools/toolProcesses.js';
import type { AgentTool, ToolContext } from '@hermes-datagen/generate/internal/tools/types.js';

const catalog = loadToolRegistry();
const names = (tools: readonly AgentTool[]): string[] => tools.map((tool) => tool.name);
const ctx: ToolContext = {
  workspace: '/nonexistent',
  env: {},
  processes: new ToolProcesses({ limit: 1, isolation: 'none' }),
  timeoutMs: 1000,
  maxOutputBytes: 1000,
  todo: { items: [] },
};

describe('tool runner (the tools generate implements)', () => {
  it("implements only names core's registry knows, each under its registry toolset", () => {
    for (const tool of IMPLEMENTED_TOOLS.values()) {
      expect(catalog.toolsetOf(tool.name), tool.name).toBe(tool.toolset);
      expect(tool.parameters).toMatchObject({ type: 'object' });
    }
  });

  it('offers the implemented tools of the sampled toolsets, sorted by name', () => {
    expect(names(offeredTools(['terminal', 'file'], catalog))).toEqual(['patch', 'read_file', 'search_files', 'terminal', 'write_file']);
    expect(names(offeredTools(['file_tools', 'todo', 'code_execution'], catalog))).toEqual([
      'execute_code',
      'patch',
      'read_file',
      'search_files',
      'todo',
      'write_file',
    ]);
    expect(names(offeredTools(['debugging'], catalog))).toEqual(['patch', 'read_file', 'search_files', 'terminal', 'write_file']);
    expect(names(offeredTools(['all'], catalog))).toEqual([...IMPLEMENTED_TOOLS.keys()].sort());
  });

  it('never offers tools that need the outside world', () => {
    expect(offeredTools(['web', 'browser', 'vision', 'image_gen', 'tts', 'moa', 'rl', 'skills'], catalog)).toEqual([]);
  });

  it("leaves an unknown toolset to core's usage error", () => {
    expect(() => offeredTools(['no-such-toolset'], catalog)).toThrow(UsageError);
  });

  it('offers no tool whose name the registry in use does not list as valid', () => {
    const narrow = parseToolRegistry({ tools: { read_file: { toolset: 'file' }, web_search: { toolset: 'web' } } }, 'narrow.json');
    expect(names(offeredTools(['file', 'web'], narrow))).toEqual(['read_file']);
  });

  it('turns tools into the definitions the system turn lists', () => {
    expect(toolDefinition(IMPLEMENTED_TOOLS.get('write_file') as AgentTool)).toEqual({
      name: 'write_file',
      description: expect.stringContaining('Write content to a file'),
      parameters: expect.objectContaining({ required: ['path', 'content'] }),
    });
  });

  it('returns JSON text and turns every failure into an error result', async () => {
    const throwing = (error: unknown): AgentTool => ({ name: 'boom', toolset: 'x', description: '', parameters: {}, run: () => Promise.reject(error) });
    expect(await executeTool('todo', {}, ctx)).toBe('{"todos":[],"summary":{"total":0,"pending":0,"in_progress":0,"completed":0,"cancelled":0}}');
    expect(await executeTool('web_search', { query: 'x' }, ctx)).toBe('{"error":"tool \'web_search\' is not available in this task"}');
    expect(await executeTool('terminal', { command: 'true' }, ctx, [...offeredTools(['file'], catalog)])).toBe(
      '{"error":"tool \'terminal\' is not available in this task"}',
    );
    expect(await executeTool('todo', ['not', 'an', 'object'], ctx)).toBe('{"error":"the arguments of todo must be one JSON object"}');
    expect(await executeTool('boom', {}, ctx, [throwing(new ToolError('say what to do'))])).toBe('{"error":"say what to do"}');
    expect(await executeTool('boom', {}, ctx, [throwing(new RangeError('unexpected'))])).toBe('{"error":"boom failed: unexpected"}');
    expect(await executeTool('boom', {}, ctx, [throwing('a string')])).toBe('{"error":"boom failed: a string"}');
  });
});

describe('--tool-timeout bounds every tool call, and a stopped prompt abandons its call at once', () => {
  /** A tool whose call never settles by itself (a read blocked forever), and a way to end it. */
  function stuckTool(fields: Partial<AgentTool> = {}): { tool: AgentTool; finish: () => void } {
    let finish = (): void => undefined;
    const tool: AgentTool = {
      name: 'stuck',
      toolset: 'x',
      description: '',
      parameters: {},
      run: () =>
        new Promise((resolve) => {
          finish = () => resolve({ finished: true });
        }),
      ...fields,
    };
    return { tool, finish: () => finish() };
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('a call past the tool timeout (and the margin a command tool has to report its own) is abandoned with an error', async () => {
    vi.useFakeTimers();
    const { tool } = stuckTool();
    let answer: string | undefined;
    void executeTool('stuck', {}, ctx, [tool]).then((text) => (answer = text));
    await vi.advanceTimersByTimeAsync(ctx.timeoutMs + TOOL_DEADLINE_MARGIN_MS - 1);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer).toBe('{"error":"stuck did not finish within the tool timeout (1 s) and was abandoned"}');
  });

  it('aborting the prompt (the end of the SIGTERM grace) ends a stuck call at once', async () => {
    const stop = new AbortController();
    const { tool } = stuckTool();
    const answer = executeTool('stuck', {}, { ...ctx, signal: stop.signal }, [tool]);
    stop.abort('SIGTERM');
    expect(await answer).toBe('{"error":"stuck was stopped: the run is stopping"}');
  });

  it('a tool that bounds its own time (delegate_task) is not cut at the tool timeout', async () => {
    vi.useFakeTimers();
    const { tool, finish } = stuckTool({ boundsItsOwnTime: true });
    let answer: string | undefined;
    void executeTool('stuck', {}, ctx, [tool]).then((text) => (answer = text));
    await vi.advanceTimersByTimeAsync(10 * (ctx.timeoutMs + TOOL_DEADLINE_MARGIN_MS));
    expect(answer).toBeUndefined();
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(answer).toBe('{"finished":true}');
  });
});
