import { describe, expect, it } from 'vitest';
import type { ToolStats, Trajectory } from '@hermes-datagen/core';
import { ToolStatsNormaliser } from '@hermes-datagen/stats/internal/normalise.js';
import { gpt, human, system, tool, trajectory } from '../util/trajectories.js';

const registry = { names: ['web_search', 'terminal', 'read_file'] };
const zero = { count: 0, success: 0, failure: 0 };

function normalised(value: Trajectory | Record<string, unknown>, recompute = false): { record: Trajectory; changed: boolean } {
  const result = new ToolStatsNormaliser(registry, recompute).normalise(value as Record<string, unknown>);
  if ('problem' in result) throw new Error(result.problem);
  return result;
}

function without(record: Trajectory, ...keys: string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  for (const key of keys) delete copy[key];
  return copy;
}

// One call of each kind the success rule (docs/rules.md#tool-success) separates.
const conversations = [
  system(['terminal', 'read_file']),
  human(),
  gpt({
    think: 'Look around.',
    calls: [{ name: 'terminal', arguments: { command: 'ls' } }, { name: 'terminal', arguments: { command: 'false' } }, { name: 'read_file' }],
  }),
  tool(
    { name: 'terminal', content: { output: 'a b', exit_code: 0 } },
    { name: 'terminal', content: { output: '', exit_code: 1, error: 'exit 1' } },
    { name: 'read_file', content: 'Error: no such file' },
  ),
  gpt({ think: 'Retry.', calls: [{ name: 'terminal', arguments: { command: 'make' } }, { name: 'read_file' }, { name: 'web_search_v2' }] }),
  tool({ name: 'terminal', content: 'Error command failed' }, { name: 'read_file', content: { success: false } }),
  gpt({ think: 'Done.', text: 'Here it is.' }),
];
// terminal: 3 calls; ok, {"error"} fails, "Error command failed" is no "error:" prefix so succeeds.
// read_file: 2 calls; "Error: ..." fails, {"success": false} fails. web_search_v2: called, never answered.
const expectedStats: ToolStats = {
  read_file: { count: 2, success: 0, failure: 2 },
  terminal: { count: 3, success: 2, failure: 1 },
  web_search: zero,
  web_search_v2: { count: 1, success: 0, failure: 0 },
};
const expectedErrorCounts = { read_file: 2, terminal: 1, web_search: 0, web_search_v2: 0 };

describe('ToolStatsNormaliser', () => {
  it('recomputes missing tool_stats from the conversations with the success rule, over the registry', () => {
    const { record, changed } = normalised(without(trajectory({ conversations }), 'tool_stats', 'tool_error_counts'));
    expect(changed).toBe(true);
    expect(record.tool_stats).toEqual(expectedStats);
    expect(record.tool_error_counts).toEqual(expectedErrorCounts);
  });

  it('keys are the sorted union of the registry and the names called, in both fields, with an unknown tool kept', () => {
    const { record } = normalised(
      trajectory({ tool_stats: { zz_unknown: { count: 1, success: 1, failure: 0 }, terminal: { count: 2, success: 1, failure: 1 } }, tool_error_counts: {} }),
    );
    expect(Object.keys(record.tool_stats)).toEqual(['read_file', 'terminal', 'web_search', 'zz_unknown']);
    expect(Object.keys(record.tool_error_counts)).toEqual(['read_file', 'terminal', 'web_search', 'zz_unknown']);
    expect(record.tool_stats['zz_unknown']).toEqual({ count: 1, success: 1, failure: 0 });
    expect(record.tool_error_counts).toEqual({ read_file: 0, terminal: 1, web_search: 0, zz_unknown: 0 });
  });

  it('with --recompute, replaces stats that disagree with the conversations', () => {
    const stale = trajectory({ conversations, tool_stats: { terminal: { count: 9, success: 9, failure: 0 } }, tool_error_counts: { terminal: 0 } });
    const { record, changed } = normalised(stale, true);
    expect(changed).toBe(true);
    expect(record.tool_stats).toEqual(expectedStats);
    expect(record.tool_error_counts).toEqual(expectedErrorCounts);
    expect(normalised(stale, false).record.tool_stats['terminal']).toEqual({ count: 9, success: 9, failure: 0 });
  });

  it('reports an already normalised record as unchanged and returns it as it is', () => {
    const input = trajectory({ conversations, tool_stats: expectedStats, tool_error_counts: expectedErrorCounts });
    for (const recompute of [false, true]) {
      const { record, changed } = normalised(input, recompute);
      expect(changed).toBe(false);
      expect(record).toBe(input);
    }
  });

  it('rewrites a record whose keys are right but out of order', () => {
    const unsorted = trajectory({
      tool_stats: { web_search: zero, terminal: zero, read_file: zero },
      tool_error_counts: { read_file: 0, terminal: 0, web_search: 0 },
    });
    const { record, changed } = normalised(unsorted);
    expect(changed).toBe(true);
    expect(Object.keys(record.tool_stats)).toEqual(['read_file', 'terminal', 'web_search']);
  });

  it('takes the order of count/success/failure inside a stat as it is: the key set is what must not drift', () => {
    const input = trajectory({
      tool_stats: { read_file: zero, terminal: { failure: 0, count: 1, success: 1 }, web_search: zero },
      tool_error_counts: { read_file: 0, terminal: 0, web_search: 0 },
    });
    expect(normalised(input).changed).toBe(false);
  });

  it('derives tool_error_counts from the failures when it is missing or disagrees', () => {
    const stats = { read_file: zero, terminal: { count: 3, success: 1, failure: 2 }, web_search: zero };
    for (const errorCounts of [undefined, { read_file: 0, terminal: 0, web_search: 0 }]) {
      const input =
        errorCounts === undefined
          ? without(trajectory({ tool_stats: stats }), 'tool_error_counts')
          : trajectory({ tool_stats: stats, tool_error_counts: errorCounts });
      const { record, changed } = normalised(input);
      expect(changed).toBe(true);
      expect(record.tool_stats).toEqual(stats);
      expect(record.tool_error_counts).toEqual({ read_file: 0, terminal: 2, web_search: 0 });
    }
  });

  it("keeps the record's key order, and appends missing fields in the schema's order", () => {
    const { tool_error_counts: errorCounts, ...rest } = trajectory();
    const reordered = { tool_error_counts: errorCounts, id: 'x', ...rest };
    expect(Object.keys(normalised(reordered).record)).toEqual(Object.keys(reordered));
    const { record } = normalised(without(trajectory({ id: 'x' }), 'tool_stats', 'tool_error_counts'));
    expect(Object.keys(record).slice(-2)).toEqual(['tool_stats', 'tool_error_counts']);
  });

  it('says what is wrong with a record that is not a trajectory, even without tool_stats', () => {
    const normaliser = new ToolStatsNormaliser(registry, false);
    expect(normaliser.normalise(without(trajectory(), 'conversations', 'tool_stats'))).toEqual({
      problem: expect.stringContaining('"conversations"') as unknown,
    });
    expect(normaliser.normalise({ ...trajectory(), tool_stats: { terminal: { count: 'one', success: 0, failure: 0 } } })).toEqual({
      problem: expect.stringContaining('/tool_stats/terminal/count') as unknown,
    });
  });
});
