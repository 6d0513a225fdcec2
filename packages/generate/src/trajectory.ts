// The trajectory record (schemas/trajectory.schema.json) of one agent run: upstream's keys in
// upstream's order (docs/record-format.md#trajectories) after our `id`, and our additions inside metadata.
import {
  extractToolStats,
  normaliseToolStats,
  roundUsd,
  toolErrorCounts,
  toShareGpt,
  type ToolDefinition,
  type ToolNames,
  type Trajectory,
} from '@hermes-datagen/core';
import type { AgentRun } from './agentLoop.js';

export interface EndpointFacts {
  readonly model: string;
  /** Host and port of the endpoint; never the key. */
  readonly host: string;
  /** First 8 hex of the key's SHA-256, when there is a key. */
  readonly keyFingerprint?: string | undefined;
}

/** Run mode's part of a record's metadata: its run, sample and row, and a sub-agent's parent and depth. */
export type RunRecordFields = Pick<Trajectory['metadata'], 'run_name' | 'sample' | 'row_hash' | 'parent_id' | 'depth'>;

export interface TrajectoryInput {
  readonly id: string;
  readonly promptIndex: number;
  /** The dataset's prompt, verbatim: the human turn. */
  readonly prompt: string;
  readonly run: AgentRun;
  /** What the system turn lists: the tools offered in this run. */
  readonly offeredTools: readonly ToolDefinition[];
  /** The sampled (or forced) toolsets, recorded even when one contributed no tool. */
  readonly toolsets: readonly string[];
  /** tool_stats and tool_error_counts get a key for every registry name. */
  readonly registry: ToolNames;
  readonly batchNum: number;
  readonly endpoint: EndpointFacts;
  readonly wallTimeS: number;
  readonly traceId: string;
  readonly seed: number | null;
  readonly finishedAt: Date;
  /** Run mode only. */
  readonly runFields?: RunRecordFields | undefined;
  /** The agent's own calls in USD, when every one was priced (--prices, or the gateway's figure). */
  readonly costUsd?: number | undefined;
  /** Calls answered from the run's call journal on --resume. */
  readonly replayedCalls?: number | undefined;
}

export function buildTrajectory(input: TrajectoryInput): Trajectory {
  const { run } = input;
  const stats = extractToolStats(run.messages);
  return {
    id: input.id,
    prompt_index: input.promptIndex,
    conversations: toShareGpt(run.messages, input.prompt, input.offeredTools),
    metadata: {
      batch_num: input.batchNum,
      timestamp: input.finishedAt.toISOString(),
      model: input.endpoint.model,
      endpoint_host: input.endpoint.host,
      ...(input.endpoint.keyFingerprint !== undefined ? { key_fingerprint: input.endpoint.keyFingerprint } : {}),
      usage: run.usage,
      wall_time_s: Math.round(input.wallTimeS * 1000) / 1000,
      trace_id: input.traceId,
      seed: input.seed,
      unknown_tools: run.unknownTools,
      // Always in the literal, undefined outside run mode (JSON.stringify leaves them out): set on the
      // finished object instead, they would move each record to a new hidden class, a cost per record.
      run_name: input.runFields?.run_name,
      sample: input.runFields?.sample,
      row_hash: input.runFields?.row_hash,
      parent_id: input.runFields?.parent_id,
      depth: input.runFields?.depth,
      cost_usd: input.costUsd === undefined ? undefined : roundUsd(input.costUsd),
      replayed_calls: input.replayedCalls === 0 ? undefined : input.replayedCalls,
    },
    completed: run.completed,
    partial: run.partial,
    api_calls: run.apiCalls,
    toolsets_used: [...input.toolsets],
    tool_stats: normaliseToolStats(stats, input.registry),
    tool_error_counts: toolErrorCounts(stats, input.registry),
  };
}

/**
 * A record's cost_usd includes its sub-agents': each record's own cost plus that of every record
 * below it (by parent_id). A tree with a call that could not be priced leaves those above it without
 * a cost: an unknown part makes the total unknown, never a smaller number.
 */
export function addSubAgentCosts(root: Trajectory, subAgents: readonly Trajectory[]): void {
  const children = new Map<string, Trajectory[]>();
  for (const sub of subAgents) {
    const parent = sub.metadata.parent_id ?? '';
    children.set(parent, [...(children.get(parent) ?? []), sub]);
  }
  const total = (record: Trajectory): number | undefined => {
    let sum = record.metadata.cost_usd;
    for (const child of children.get(record.id ?? '') ?? []) {
      const part = total(child);
      sum = sum === undefined || part === undefined ? undefined : sum + part;
    }
    record.metadata.cost_usd = sum === undefined ? undefined : roundUsd(sum);
    return sum;
  };
  total(root);
}
