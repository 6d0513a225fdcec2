// Inputs for the analysis tests (sql, report, export, html): the benchmark corpus generator's realistic
// records (reasoning styles, hallucinated tools, failures, usage, many models and toolsets) plus edge
// records built by hand, each exercising one rule the tables and the report must get right.
import type { Tombstone, Trajectory } from '@hermes-datagen/core';
// @ts-expect-error: the corpus generator is plain JavaScript without type declarations
import { makeTrajectory } from '../../bench/synthetic/trajectory.mjs';
import { gpt, human, rawGpt, tool, trajectory } from '../util/trajectories.js';

const SHORT_SYSTEM = { from: 'system', value: 'You are a function calling AI model.' } as const;

/** `count` records of the benchmark corpus (seed 7). */
export function syntheticRecords(count: number): Trajectory[] {
  return Array.from({ length: count }, (_, i) => (makeTrajectory(7, i) as { record: Trajectory }).record);
}

/** Calls terminal (succeeds: a non-zero exit code is not a failure), then read_file twice with one result only. */
export const toolsRecord: Trajectory = trajectory({
  id: 'edge-tools',
  prompt_index: 10,
  metadata: {
    batch_num: 1,
    timestamp: '2026-02-01T10:00:00',
    model: 'edge/model-a',
    usage: { prompt_tokens: 100, completion_tokens: 40, total_tokens: 140 },
    compression: { tokens_before: 900, tokens_after: 300 },
    wall_time_s: 2.5,
    endpoint_host: '127.0.0.1:8080',
  },
  toolsets_used: ['terminal', 'file', 'terminal'],
  api_calls: 3,
  conversations: [
    SHORT_SYSTEM,
    human('List and read.'),
    gpt({ think: 'List first.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
    tool({ name: 'terminal', content: { output: 'a.txt', exit_code: 1, error: null } }),
    gpt({
      calls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'b.txt' } },
      ],
    }),
    tool({ name: 'read_file', content: { error: 'no such file' } }),
    rawGpt('<REASONING_SCRATCHPAD>\nOne file was missing.\n</REASONING_SCRATCHPAD>\nDone.'),
  ],
  tool_stats: { read_file: { count: 2, success: 0, failure: 1 }, terminal: { count: 1, success: 1, failure: 0 } },
  tool_error_counts: { read_file: 1, terminal: 0 },
});

/** Written by an older tool: no tool_stats at all, so they are recomputed; a malformed call and an "Error:" text result. */
export const bareRecord: Record<string, unknown> = (() => {
  const {
    tool_stats: _stats,
    tool_error_counts: _errors,
    ...rest
  } = trajectory({
    id: 'edge-bare',
    prompt_index: 11,
    metadata: { batch_num: 1, timestamp: '2026-02-01T11:00:00', model: 'edge/model-b' },
    completed: false,
    partial: true,
    api_calls: 2,
    toolsets_used: ['web'],
    conversations: [
      SHORT_SYSTEM,
      human('Search.'),
      gpt({ think: 'Search it.', calls: ['not json at all', { name: 'web_search', arguments: { query: 'x' } }] }),
      tool({ name: 'unknown', content: 'ignored' }, { name: 'web_search', content: 'Error: rate limited' }),
    ],
  });
  return rest;
})();

/** tool_stats that disagree with the conversation: the report counts what the record says, as the stream summary does. */
export const claimedStatsRecord: Trajectory = trajectory({
  id: 'edge-claimed',
  prompt_index: 12,
  metadata: { batch_num: 2, timestamp: '2026-02-02T09:00:00', model: 'edge/model-a', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } },
  toolsets_used: ['terminal'],
  tool_stats: { terminal: { count: 5, success: 3, failure: 1 }, web_search_v2: { count: 1, success: 1, failure: 0 } },
  tool_error_counts: { terminal: 1, web_search_v2: 0 },
});

/** No assistant turn at all. */
export const silentRecord: Trajectory = trajectory({
  id: 'edge-silent',
  prompt_index: 13,
  conversations: [SHORT_SYSTEM, human('Anything?')],
  api_calls: 0,
  completed: false,
});

export const tombstones: Tombstone[] = [
  { prompt_index: 20, discarded: 'no_reasoning', prompt: 'Why, "really"?' },
  { prompt_index: 21, discarded: 'no_reasoning', prompt: 'How?' },
  { id: 'edge-judged', prompt_index: 22, discarded: 'judge_rejected', prompt: 'What?' },
];

export const edgeRecords: readonly object[] = [toolsRecord, bareRecord, claimedStatsRecord, silentRecord, ...tombstones];
