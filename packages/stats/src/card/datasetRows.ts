// The rows of a `hermes-stats card` dataset and their one fixed Parquet schema, per --format:
//   chat          the OpenAI chat form of hermes-to-atropos --emit chat (core's openaiChat.ts), for SFT
//                 trainers that read `messages` + `tools` (TRL, axolotl, LLaMA-Factory);
//   trajectories  the Hermes records themselves, field for field.
// Every row of every shard has exactly these columns and types, so the Hub's viewer, `datasets` and DuckDB
// read the folder as one table. Objects whose keys are data (a tool's JSON-schema parameters, tool_stats,
// metadata) cannot have one fixed struct type across rows, so they are JSON text columns.
import { DEFAULT_REASONING_FIELD, toOpenAIChat, type Trajectory } from '@hermes-datagen/core';

export const DATASET_FORMATS = ['chat', 'trajectories'] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

export interface DatasetColumn {
  readonly name: string;
  /** The DuckDB type, which is also what read_json parses each row's value as. */
  readonly type: string;
  readonly describe: string;
}

const TOOL_CALL = 'STRUCT(id VARCHAR, "type" VARCHAR, "function" STRUCT("name" VARCHAR, arguments VARCHAR))';

export const DATASET_COLUMNS: Readonly<Record<DatasetFormat, readonly DatasetColumn[]>> = {
  chat: [
    { name: 'id', type: 'VARCHAR', describe: 'The trajectory id (or the id derived from its prompt_index and prompt).' },
    {
      name: 'messages',
      type: `STRUCT("role" VARCHAR, "content" VARCHAR, reasoning_content VARCHAR, tool_calls ${TOOL_CALL}[], tool_call_id VARCHAR)[]`,
      describe:
        'OpenAI chat messages: system (only a real system prompt), user, assistant (content, reasoning_content, tool_calls with arguments as JSON text), tool (tool_call_id, content). Absent fields are null.',
    },
    {
      name: 'tools',
      type: 'VARCHAR',
      describe: 'JSON text: the list of tools offered, as OpenAI function definitions ({"type": "function", "function": {name, description, parameters}}).',
    },
    { name: 'model', type: 'VARCHAR', describe: 'The model the trajectory was generated with (metadata.model).' },
    { name: 'completed', type: 'BOOLEAN', describe: 'The agent finished the task within its turn budget.' },
  ],
  trajectories: [
    { name: 'id', type: 'VARCHAR', describe: 'Stable id of the trajectory; null in records made by upstream Hermes.' },
    { name: 'prompt_index', type: 'BIGINT', describe: "The prompt's position among the dataset's valid rows, from 0." },
    { name: 'conversations', type: 'STRUCT("from" VARCHAR, "value" VARCHAR)[]', describe: 'ShareGPT turns: system, human, gpt, tool (Hermes wire text).' },
    {
      name: 'metadata',
      type: 'VARCHAR',
      describe: "JSON text: batch_num, timestamp, model and the keys hermes-datagen adds (usage, compression, ...), without the API key's fingerprint.",
    },
    { name: 'completed', type: 'BOOLEAN', describe: 'The agent finished the task within its turn budget.' },
    { name: 'partial', type: 'BOOLEAN', describe: 'The trajectory was cut short (an error or a stop).' },
    { name: 'api_calls', type: 'BIGINT', describe: 'Model calls the trajectory took.' },
    { name: 'toolsets_used', type: 'VARCHAR[]', describe: 'The toolsets offered to the agent.' },
    { name: 'tool_stats', type: 'VARCHAR', describe: 'JSON text: per tool, {count, success, failure}.' },
    { name: 'tool_error_counts', type: 'VARCHAR', describe: 'JSON text: per tool, the failed calls.' },
    { name: 'compression_metrics', type: 'VARCHAR', describe: "JSON text: upstream's compression metrics, on records a compression stage changed; else null." },
  ],
};

/** One record's row for --format, or the problem that keeps it out of a chat dataset. */
export function datasetRow(format: DatasetFormat, record: Trajectory, id: string): { row: Record<string, unknown> } | { problem: string } {
  if (format === 'chat') {
    const chat = toOpenAIChat(record, id, { field: DEFAULT_REASONING_FIELD });
    if ('problem' in chat) return { problem: `cannot write it as OpenAI chat messages: ${chat.problem}` };
    return { row: { id, messages: chat.messages, tools: JSON.stringify(chat.tools), model: record.metadata.model, completed: record.completed } };
  }
  // The key's fingerprint stays out of a dataset meant for publishing.
  const { key_fingerprint: _fingerprint, ...metadata } = record.metadata;
  const row = {
    id: record.id ?? null,
    prompt_index: record.prompt_index,
    conversations: record.conversations,
    metadata: JSON.stringify(metadata),
    completed: record.completed,
    partial: record.partial,
    api_calls: record.api_calls,
    toolsets_used: record.toolsets_used,
    tool_stats: JSON.stringify(record.tool_stats),
    tool_error_counts: JSON.stringify(record.tool_error_counts),
    compression_metrics: record.compression_metrics === undefined ? null : JSON.stringify(record.compression_metrics),
  };
  return { row };
}
