// The record model, written once from the JSON Schemas in schemas/ (which are the source of truth:
// the validators are built from them). Every package takes these types from here.

/** schemas/prompt.schema.json */
export interface PromptRow {
  prompt: string;
  id?: string;
  cwd?: string;
  docker_image?: string;
  image?: string;
  env?: Record<string, string>;
  [key: string]: unknown;
}

export type TurnRole = 'system' | 'human' | 'gpt' | 'tool';

/** One ShareGPT turn of a trajectory's `conversations`. */
export interface Turn {
  from: TurnRole;
  value: string;
}

export interface ToolStat {
  count: number;
  success: number;
  failure: number;
}

export type ToolStats = Record<string, ToolStat>;
export type ToolErrorCounts = Record<string, number>;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Upstream's three keys plus hermes-datagen's own (schemas/trajectory.schema.json#/$defs/metadata). */
export interface TrajectoryMetadata {
  batch_num: number;
  timestamp: string;
  model: string;
  endpoint_host?: string;
  key_fingerprint?: string;
  usage?: Usage;
  wall_time_s?: number;
  trace_id?: string;
  seed?: number | null;
  unknown_tools?: string[];
  /** hermes-generate --run-name, --samples and the dataset row's content hash (16 hex). */
  run_name?: string;
  sample?: number;
  row_hash?: string;
  /** A sub-agent's record (delegate_task): the record that delegated it, and how deep it is (from 1). */
  parent_id?: string;
  depth?: number;
  /** What its model calls cost in USD, sub-agents' included (absent: not priced), and the calls replayed from the run's journal. */
  cost_usd?: number;
  replayed_calls?: number;
  /** Set by a compression stage: the conversation's token count before and after it (null: not tokenised), and what it did. */
  compression?: {
    tokens_before: number | null;
    tokens_after: number | null;
    status?: 'compressed' | 'skipped' | 'unchanged' | 'error';
    reason?: string;
    strategy?: 'prune' | 'key_decision_extract' | 'llm' | 'placeholder' | null;
    target?: number | null;
    config_hash?: string;
    message?: string;
  };
  [key: string]: unknown;
}

/** schemas/trajectory.schema.json: the Hermes batch record plus a top-level `id`. */
export interface Trajectory {
  id?: string;
  prompt_index: number;
  conversations: Turn[];
  metadata: TrajectoryMetadata;
  completed: boolean;
  partial: boolean;
  api_calls: number;
  toolsets_used: string[];
  tool_stats: ToolStats;
  tool_error_counts: ToolErrorCounts;
  /** Upstream's per-trajectory compression metrics, on records a compression stage changed. */
  compression_metrics?: CompressionMetrics;
}

/** Upstream hermes-agent TrajectoryMetrics.to_dict(), key order included (schemas/trajectory.schema.json#/$defs/compressionMetrics). */
export interface CompressionMetrics {
  original_tokens: number;
  compressed_tokens: number;
  tokens_saved: number;
  compression_ratio: number;
  original_turns: number;
  compressed_turns: number;
  turns_removed: number;
  compression_region: { start_idx: number; end_idx: number; turns_count: number };
  was_compressed: boolean;
  still_over_limit: boolean;
  skipped_under_target: boolean;
  summarization_api_calls: number;
  summarization_errors: number;
}

/** schemas/tombstone.schema.json */
export interface Tombstone {
  id?: string;
  prompt_index: number;
  discarded: string;
  prompt: string;
  metadata?: Record<string, unknown>;
}

/** schemas/reject.schema.json */
export interface Reject {
  line: number;
  source: string;
  reason: string;
  raw: string;
  truncated?: boolean;
}

/** schemas/checkpoint.schema.json */
export interface Checkpoint {
  version: 1;
  run_name: string;
  dataset?: { path: string; valid_rows: number; sha256?: string };
  endpoint?: { host: string; model: string; key_fingerprint: string | null };
  done: Record<string, CheckpointEntry>;
  /** Batch file name -> its size when every line of it had its entry in `done`. */
  files?: Record<string, number>;
  /** Every (row, sample) of this dataset and selection was done (a --resume of them has nothing to run). */
  complete?: CompleteRun;
  last_updated: string;
}

export interface CompleteRun {
  sha256: string;
  samples: number;
  max_samples: number | null;
  /** --shard as given (i/N), null for all rows. */
  shard: string | null;
  /** The (row, sample) pairs of the selection. */
  records: number;
}

export interface CheckpointEntry {
  prompt_index: number;
  status: 'written' | 'discarded';
  reason?: string;
  shard?: string;
  sample?: number;
  row_hash?: string;
}

// ---- OpenAI chat-completions messages: the agent's internal history, input of the ShareGPT converter.

export interface ChatToolCall {
  id: string;
  type?: 'function';
  function: {
    name: string;
    /** A JSON string as the API sends it; an already-parsed object is accepted too. */
    arguments: string | Record<string, unknown>;
  };
}

export interface ReasoningDetail {
  type?: string;
  summary?: string;
  thinking?: string;
  content?: string;
  text?: string;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  /** The normalised reasoning text (Hermes' `msg["reasoning"]`). */
  reasoning?: string | null;
  reasoning_content?: string | null;
  reasoning_details?: ReasoningDetail[] | null;
  tool_calls?: ChatToolCall[] | null;
  finish_reason?: string | null;
}

export interface ToolMessage {
  role: 'tool';
  content: unknown;
  tool_call_id?: string;
  name?: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A tool as offered to the model; what the ShareGPT system turn lists. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}
