// Small builders for Hermes trajectory records in tests, in the shape upstream writes them
// (docs/record-format.md#conversations): gpt values with a leading <think> block and <tool_call> blocks, tool
// values with <tool_response> blocks, both in Python json.dumps style. Fields not given get defaults.
import { pythonJsonDumps, type Trajectory, type Turn } from '@hermes-datagen/core';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';

/** The system turn offering these tools (upstream's fixed template). */
export function system(toolNames: readonly string[] = ['terminal', 'read_file']): Turn {
  return { from: 'system', value: hermesSystemPrompt(toolNames.map((name) => ({ name }))) };
}

export function human(text = 'Do the task.'): Turn {
  return { from: 'human', value: text };
}

export interface GptParts {
  /** Reasoning text; absent or empty gives the inserted empty `<think>\n</think>` block. */
  think?: string;
  text?: string;
  /** Calls as {name, arguments}, or a string used verbatim as a block's inner text (for malformed calls). */
  calls?: readonly ({ name: string; arguments?: Record<string, unknown> } | string)[];
}

/** A gpt turn as upstream's think normalisation writes it (docs/rules.md#think-blocks). */
export function gpt({ think = '', text = '', calls = [] }: GptParts = {}): Turn {
  let value = think.trim() !== '' ? `<think>\n${think}\n</think>\n` : '<think>\n</think>\n';
  if (text !== '') value += calls.length > 0 ? `${text}\n` : text;
  for (const call of calls) {
    const inner = typeof call === 'string' ? call : pythonJsonDumps({ name: call.name, arguments: call.arguments ?? {} });
    value += `<tool_call>\n${inner}\n</tool_call>\n`;
  }
  return { from: 'gpt', value: value.trim() };
}

/** A gpt turn whose value is exactly this text (no normalisation). */
export function rawGpt(value: string): Turn {
  return { from: 'gpt', value };
}

export interface ToolResult {
  name: string;
  content: unknown;
  id?: string;
}

/** A tool turn holding one <tool_response> block per result. */
export function tool(...results: readonly ToolResult[]): Turn {
  const blocks = results.map(
    ({ name, content, id = `call_${name}` }) => `<tool_response>\n${pythonJsonDumps({ tool_call_id: id, name, content })}\n</tool_response>`,
  );
  return { from: 'tool', value: blocks.join('\n') };
}

/** A complete record; conversations default to system, human and one reasoned answer. */
export function trajectory(fields: Partial<Trajectory> = {}): Trajectory {
  const conversations = fields.conversations ?? [system(), human(), gpt({ think: 'Plan the answer.', text: 'Done.' })];
  return {
    prompt_index: 0,
    conversations,
    metadata: { batch_num: 0, timestamp: '2026-01-01T00:00:00', model: 'test/model' },
    completed: true,
    partial: false,
    api_calls: conversations.filter((turn) => turn.from === 'gpt').length,
    toolsets_used: [],
    tool_stats: {},
    tool_error_counts: {},
    ...fields,
  };
}
