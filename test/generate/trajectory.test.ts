import { describe, expect, it } from 'vitest';
import { validator, type ChatMessage, type ToolDefinition } from '@hermes-datagen/core';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';
import type { AgentRun } from '@hermes-datagen/generate/internal/agentLoop.js';
import { buildTrajectory, type RunRecordFields, type TrajectoryInput } from '@hermes-datagen/generate/internal/trajectory.js';

const OFFERED: ToolDefinition[] = [{ name: 'terminal', description: 'Run a command', parameters: { type: 'object', properties: {} } }];
const REGISTRY = { names: ['read_file', 'terminal', 'write_file'] };

const messages: ChatMessage[] = [
  { role: 'user', content: 'List the files' },
  {
    role: 'assistant',
    content: null,
    reasoning: 'ls will do',
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: '{"output": "a.txt", "exit_code": 0, "error": null}' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'web_search_v2', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c2', content: '{"error": "tool \'web_search_v2\' does not exist"}' },
  { role: 'assistant', content: 'One file: a.txt.' },
];

const run: AgentRun = {
  messages,
  completed: true,
  partial: false,
  apiCalls: 3,
  usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
  unknownTools: ['web_search_v2'],
  servedModels: ['gpt-4o-2024-08-06'],
};

function input(overrides: Partial<TrajectoryInput> = {}): TrajectoryInput {
  return {
    id: 'task-1',
    promptIndex: 4,
    prompt: 'List the files',
    run,
    offeredTools: OFFERED,
    toolsets: ['terminal', 'web'],
    registry: REGISTRY,
    batchNum: 0,
    endpoint: { model: 'test-model', host: '127.0.0.1:8080', keyFingerprint: '0123abcd' },
    wallTimeS: 1.23456,
    traceId: 'trace-1',
    seed: 7,
    finishedAt: new Date('2025-06-12T10:00:00.000Z'),
    ...overrides,
  };
}

describe('buildTrajectory', () => {
  it('makes a record the trajectory schema accepts, with upstream key order after the id', () => {
    const record = buildTrajectory(input());
    expect(validator('trajectory')(record)).toBeNull();
    expect(Object.keys(record)).toEqual([
      'id',
      'prompt_index',
      'conversations',
      'metadata',
      'completed',
      'partial',
      'api_calls',
      'toolsets_used',
      'tool_stats',
      'tool_error_counts',
    ]);
    expect(record).toMatchObject({ id: 'task-1', prompt_index: 4, completed: true, partial: false, api_calls: 3, toolsets_used: ['terminal', 'web'] });
  });

  it('lists the offered tools in the system turn and keeps the prompt verbatim as the human turn', () => {
    const record = buildTrajectory(input());
    expect(record.conversations.map((t) => t.from)).toEqual(['system', 'human', 'gpt', 'tool', 'gpt', 'tool', 'gpt']);
    expect(record.conversations[0]?.value).toBe(hermesSystemPrompt(OFFERED));
    expect(record.conversations[1]?.value).toBe('List the files');
    expect(record.conversations[2]?.value).toBe(
      '<think>\nls will do\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call>',
    );
    expect(record.conversations[6]?.value).toBe('<think>\n</think>\nOne file: a.txt.');
  });

  it('normalises tool stats over the registry and keeps the unknown name the model called', () => {
    const record = buildTrajectory(input());
    expect(Object.keys(record.tool_stats)).toEqual(['read_file', 'terminal', 'web_search_v2', 'write_file']);
    expect(record.tool_stats['terminal']).toEqual({ count: 1, success: 1, failure: 0 });
    expect(record.tool_stats['web_search_v2']).toEqual({ count: 1, success: 0, failure: 1 });
    expect(record.tool_error_counts).toEqual({ read_file: 0, terminal: 0, web_search_v2: 1, write_file: 0 });
    expect(record.metadata.unknown_tools).toEqual(['web_search_v2']);
  });

  it('carries the endpoint facts, usage, timing and provenance in metadata', () => {
    expect(buildTrajectory(input()).metadata).toEqual({
      batch_num: 0,
      timestamp: '2025-06-12T10:00:00.000Z',
      model: 'test-model',
      served_model: 'gpt-4o-2024-08-06',
      endpoint_host: '127.0.0.1:8080',
      key_fingerprint: '0123abcd',
      usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
      wall_time_s: 1.235,
      trace_id: 'trace-1',
      seed: 7,
      unknown_tools: ['web_search_v2'],
    });
  });

  it("writes run mode's fields last in metadata, and none of them outside run mode", () => {
    const written = (runFields?: RunRecordFields): Record<string, unknown> =>
      JSON.parse(JSON.stringify(buildTrajectory(input(runFields === undefined ? {} : { runFields })).metadata)) as Record<string, unknown>;
    const upstream = [
      'batch_num',
      'timestamp',
      'model',
      'served_model',
      'endpoint_host',
      'key_fingerprint',
      'usage',
      'wall_time_s',
      'trace_id',
      'seed',
      'unknown_tools',
    ];
    expect(Object.keys(written())).toEqual(upstream);
    const root = { run_name: 'r', sample: 1, row_hash: '0123456789abcdef' };
    expect(written(root)).toMatchObject(root);
    expect(Object.keys(written(root))).toEqual([...upstream, 'run_name', 'sample', 'row_hash']);
    expect(Object.keys(written({ ...root, parent_id: 'p1', depth: 1 }))).toEqual([...upstream, 'run_name', 'sample', 'row_hash', 'parent_id', 'depth']);
    expect(validator('trajectory')(buildTrajectory(input({ runFields: { ...root, parent_id: 'p1', depth: 1 } })))).toBeNull();
  });

  it('records every model the replies named, and null when none did', () => {
    const served = (servedModels: string[]) => buildTrajectory(input({ run: { ...run, servedModels } })).metadata.served_model;
    expect(served(['primary', 'fallback'])).toBe('primary, fallback');
    expect(served([])).toBeNull();
    expect(validator('trajectory')(buildTrajectory(input({ run: { ...run, servedModels: [] } })))).toBeNull();
  });

  it('leaves the fingerprint out when there is no key, and records a null seed', () => {
    const record = buildTrajectory(input({ endpoint: { model: 'm', host: 'localhost:1' }, seed: null }));
    expect(record.metadata).not.toHaveProperty('key_fingerprint');
    expect(record.metadata.seed).toBeNull();
    expect(validator('trajectory')(record)).toBeNull();
  });
});
