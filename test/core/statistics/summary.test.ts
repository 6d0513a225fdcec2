import { describe, expect, it } from 'vitest';
import { validator, type Tombstone, type ToolStats, type Trajectory, type Turn } from '@hermes-datagen/core';
import {
  addTombstone,
  addTrajectory,
  emptySummary,
  finaliseSummary,
  mergeSummaries,
  summaryFromFile,
  type Summary,
} from '@hermes-datagen/core/internal/statistics/summary.js';
import { gpt, human, system, tool, trajectory } from '../../util/trajectories.js';

const zero = { count: 0, success: 0, failure: 0 };
const tombstone = (discarded: string): Tombstone => ({ prompt_index: 9, discarded, prompt: 'p' });
const usage = (prompt: number, completion: number): Trajectory['metadata']['usage'] => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});
const meta = (model: string, withUsage?: Trajectory['metadata']['usage']): Trajectory['metadata'] => ({
  batch_num: 0,
  timestamp: '2026-01-01T00:00:00',
  model,
  ...(withUsage ? { usage: withUsage } : {}),
});

// A small run, counted by hand below.
const records: Trajectory[] = [
  trajectory({
    metadata: meta('model-a', usage(100, 20)),
    toolsets_used: ['terminal', 'file'],
    api_calls: 3,
    conversations: [
      system(),
      human(),
      gpt({ think: 'List.', calls: [{ name: 'terminal' }] }),
      tool({ name: 'terminal', content: 'ok' }),
      gpt({ think: 'Read.', calls: [{ name: 'read_file' }] }),
      tool({ name: 'read_file', content: 'Error: gone' }),
      gpt({ text: 'Done.' }),
    ], // 7 turns, 3 gpt turns, 2 with reasoning
    tool_stats: { memory: zero, read_file: { count: 1, success: 0, failure: 1 }, terminal: { count: 1, success: 1, failure: 0 } },
  }),
  trajectory({
    metadata: meta('model-a'),
    toolsets_used: ['terminal'],
    completed: false,
    partial: true,
    api_calls: 5,
    conversations: [system(), human(), gpt({ think: 'Hmm.' })], // 3 turns, 1 gpt, 1 with reasoning
    tool_stats: { memory: zero, read_file: zero, terminal: zero },
  }),
  trajectory({
    metadata: meta('model-b', usage(50, 10)),
    toolsets_used: ['web'],
    api_calls: 1,
    conversations: [system(), human(), gpt({ calls: [{ name: 'web_search' }] }), tool({ name: 'web_search', content: '[]' }), gpt({ think: 'Ok.' })], // 5 turns, 2 gpt, 1
    tool_stats: { web_search: { count: 1, success: 1, failure: 0 }, web_search_v2: { count: 2, success: 1, failure: 1 } },
  }),
  trajectory({
    metadata: meta('model-b'),
    toolsets_used: [],
    api_calls: 2,
    conversations: [system(), human(), gpt({ think: 'Sure.' })], // 3 turns, 1 gpt, 1
  }),
];

function summaryOf(trajectories: readonly Trajectory[], tombstones: readonly Tombstone[] = []): Summary {
  const summary = emptySummary();
  for (const record of trajectories) addTrajectory(summary, record);
  for (const t of tombstones) addTombstone(summary, t);
  return summary;
}

describe('finaliseSummary', () => {
  const file = finaliseSummary(summaryOf(records, [tombstone('no_reasoning'), tombstone('too_long')]));

  it('has the statistics.json numbers of upstream, counted by hand', () => {
    expect(file.tool_statistics).toEqual({
      read_file: { count: 1, success: 0, failure: 1, success_rate: 0, failure_rate: 100 },
      terminal: { count: 1, success: 1, failure: 0, success_rate: 100, failure_rate: 0 },
      web_search: { count: 1, success: 1, failure: 0, success_rate: 100, failure_rate: 0 },
      web_search_v2: { count: 2, success: 1, failure: 1, success_rate: 50, failure_rate: 50 },
    });
    expect(file.reasoning_statistics).toEqual({ total_assistant_turns: 7, turns_with_reasoning: 5, turns_without_reasoning: 2 });
    expect(file.discarded_no_reasoning).toBe(1);
  });

  it('has the extensions, counted by hand', () => {
    expect(file).toMatchObject({
      format: 'hermes-stats-summary/1',
      trajectories: 4,
      completed: 3,
      completed_rate: 75,
      partial: 1,
      partial_rate: 25,
      tool_calls: 5,
      tool_failures: 2,
      discarded: { no_reasoning: 1, too_long: 1 },
      usage: { trajectories: 2, prompt_tokens: 150, completion_tokens: 30, total_tokens: 180 },
    });
    // turns 7, 3, 5, 3 -> sorted 3 3 5 7; api_calls 3, 5, 1, 2 -> 1 2 3 5; p90 at rank 2.7.
    expect(file.turns).toEqual({ min: 3, median: 4, p90: expect.closeTo(6.4, 12) as unknown, max: 7, total: 18, histogram: { '3': 2, '5': 1, '7': 1 } });
    expect(file.api_calls).toEqual({
      min: 1,
      median: 2.5,
      p90: expect.closeTo(4.4, 12) as unknown,
      max: 5,
      total: 11,
      histogram: { '1': 1, '2': 1, '3': 1, '5': 1 },
    });
    const usageA = { trajectories: 1, prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
    const usageB = { trajectories: 1, prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 };
    expect(file.by_model).toEqual({
      'model-a': {
        trajectories: 2,
        completed: 1,
        completed_rate: 50,
        partial: 1,
        partial_rate: 50,
        api_calls_total: 8,
        tool_calls: 2,
        tool_failures: 1,
        usage: usageA,
      },
      'model-b': {
        trajectories: 2,
        completed: 2,
        completed_rate: 100,
        partial: 0,
        partial_rate: 0,
        api_calls_total: 3,
        tool_calls: 3,
        tool_failures: 1,
        usage: usageB,
      },
    });
    expect(file.by_toolset).toEqual({
      file: {
        trajectories: 1,
        completed: 1,
        completed_rate: 100,
        partial: 0,
        partial_rate: 0,
        api_calls_total: 3,
        tool_calls: 2,
        tool_failures: 1,
        usage: usageA,
      },
      terminal: {
        trajectories: 2,
        completed: 1,
        completed_rate: 50,
        partial: 1,
        partial_rate: 50,
        api_calls_total: 8,
        tool_calls: 2,
        tool_failures: 1,
        usage: usageA,
      },
      web: {
        trajectories: 1,
        completed: 1,
        completed_rate: 100,
        partial: 0,
        partial_rate: 0,
        api_calls_total: 1,
        tool_calls: 3,
        tool_failures: 1,
        usage: usageB,
      },
    });
  });

  it('validates against the statistics schema, and so does an empty summary', () => {
    expect(validator('statistics')(file)).toBeNull();
    const empty = finaliseSummary(emptySummary());
    expect(validator('statistics')(empty)).toBeNull();
    expect(empty.turns).toEqual({ min: null, median: null, p90: null, max: null, total: 0, histogram: {} });
    expect(empty.completed_rate).toBe(0);
  });

  it('keeps data names such as "__proto__" as ordinary keys', () => {
    const odd = trajectory({
      metadata: meta('__proto__'),
      toolsets_used: ['constructor'],
      tool_stats: JSON.parse('{"__proto__": {"count": 1, "success": 1, "failure": 0}}') as ToolStats,
    });
    const result = finaliseSummary(summaryOf([odd]));
    expect(Object.keys(result.by_model)).toEqual(['__proto__']);
    expect(Object.keys(result.by_toolset)).toEqual(['constructor']);
    expect(Object.keys(result.tool_statistics)).toEqual(['__proto__']);
    expect(JSON.stringify(finaliseSummary(summaryFromFile(JSON.parse(JSON.stringify(result)), 'odd.json')))).toBe(JSON.stringify(result));
  });
});

/** A seeded linear congruential generator: each call returns a whole number below k. */
function lcg(seed: number): (k: number) => number {
  let state = seed;
  return (k) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % k;
  };
}

/** A seeded mix of records: models, toolsets, usage or not, tools called or not, varied lengths. */
function randomRecords(seed: number, n: number): { trajectories: Trajectory[]; tombstones: Tombstone[] } {
  const next = lcg(seed);
  const trajectories: Trajectory[] = [];
  for (let i = 0; i < n; i += 1) {
    const gptTurns = 1 + next(6);
    const conversations: Turn[] = [system(), human(), ...Array.from({ length: gptTurns }, () => gpt(next(3) === 0 ? {} : { think: 'Think.' }))];
    const tool_stats: ToolStats = {};
    for (const name of ['terminal', 'read_file', 'web_search', 'made_up']) {
      const success = next(4);
      const failure = next(3) === 0 ? next(3) : 0;
      if (success + failure > 0 || next(2) === 0) tool_stats[name] = { count: success + failure + next(2), success, failure };
    }
    trajectories.push(
      trajectory({
        metadata: meta(`model-${next(3)}`, next(2) === 0 ? usage(next(5000), next(900)) : undefined),
        toolsets_used: ['terminal', 'file', 'web'].filter(() => next(2) === 0),
        completed: next(4) !== 0,
        partial: next(5) === 0,
        api_calls: next(30),
        conversations,
        tool_stats,
      }),
    );
  }
  const tombstones = Array.from({ length: next(4) }, () => tombstone(next(2) === 0 ? 'no_reasoning' : 'hallucinated_tool'));
  return { trajectories, tombstones };
}

/** Through the file and back, as `merge` reads shards. */
const viaFile = (summary: Summary, name: string): Summary => summaryFromFile(JSON.parse(JSON.stringify(finaliseSummary(summary))) as unknown, name);

describe('mergeSummaries', () => {
  it('merging the summaries of any split gives exactly the summary of one pass over everything', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { trajectories, tombstones } = randomRecords(seed, 40);
      const onePass = JSON.stringify(finaliseSummary(summaryOf(trajectories, tombstones)));
      const pick = lcg(seed * 7919);
      const shards = 2 + pick(3);
      const parts = Array.from({ length: shards }, () => ({ trajectories: [] as Trajectory[], tombstones: [] as Tombstone[] }));
      for (const record of trajectories) parts[pick(shards)]!.trajectories.push(record);
      for (const t of tombstones) parts[pick(shards)]!.tombstones.push(t);
      const merged = parts.map((part, i) => viaFile(summaryOf(part.trajectories, part.tombstones), `shard-${i}.json`)).reduce(mergeSummaries, emptySummary());
      expect(JSON.stringify(finaliseSummary(merged))).toBe(onePass);
    }
  });

  it('does not change its inputs, and an empty summary is neutral', () => {
    const { trajectories } = randomRecords(11, 10);
    const a = summaryOf(trajectories.slice(0, 5));
    const b = summaryOf(trajectories.slice(5));
    const before = JSON.stringify([finaliseSummary(a), finaliseSummary(b)]);
    const merged = mergeSummaries(a, b);
    expect(JSON.stringify([finaliseSummary(a), finaliseSummary(b)])).toBe(before);
    expect(finaliseSummary(mergeSummaries(merged, emptySummary()))).toEqual(finaliseSummary(merged));
  });
});

describe('summaryFromFile', () => {
  it('refuses a statistics.json without the hermes-stats fields, naming the file', () => {
    const upstream = {
      tool_statistics: {},
      reasoning_statistics: { total_assistant_turns: 0, turns_with_reasoning: 0, turns_without_reasoning: 0 },
      discarded_no_reasoning: 0,
    };
    expect(() => summaryFromFile(upstream, 'statistics.json')).toThrow(/statistics.json is not a hermes-stats summary/);
  });

  it('refuses a summary that lost one of its parts, naming the file and the part', () => {
    const { turns: _dropped, ...broken } = finaliseSummary(summaryOf(records));
    expect(() => summaryFromFile(broken, 'shard-1.json')).toThrow(/shard-1.json .*turns/);
  });
});

describe('cost and replayed calls', () => {
  const priced = (model: string, cost: number | undefined, extra: Partial<Trajectory['metadata']> = {}): Trajectory =>
    trajectory({ metadata: { ...meta(model), ...(cost === undefined ? {} : { cost_usd: cost }), ...extra } });

  it('sums cost_usd per model over the records that are no sub-agent, and the replayed calls over all', () => {
    const summary = emptySummary();
    addTrajectory(summary, priced('a', 0.5, { replayed_calls: 2 }));
    addTrajectory(summary, priced('a', 0.25));
    // A sub-agent's cost is already in its parent's (0.5 above).
    addTrajectory(summary, priced('a', 0.1, { parent_id: 'x', replayed_calls: 1 }));
    addTrajectory(summary, priced('b', 1));
    addTrajectory(summary, priced('b', undefined));
    const file = finaliseSummary(summary);
    expect(file.cost_usd).toEqual({
      total: 1.75,
      trajectories: 3,
      per_trajectory: 0.583333333,
      by_model: { a: { trajectories: 2, total: 0.75, per_trajectory: 0.375 }, b: { trajectories: 1, total: 1, per_trajectory: 1 } },
    });
    expect(file.replayed_calls).toBe(3);
    expect(validator('statistics')(file)).toBeNull();
    // Read back and merged, as hermes-stats merge does: the same totals.
    const merged = finaliseSummary(mergeSummaries(summaryFromFile(file, 'a.json'), summaryFromFile(file, 'b.json')));
    expect(merged.cost_usd?.total).toBe(3.5);
    expect(merged.cost_usd?.by_model['b']?.trajectories).toBe(2);
    expect(merged.replayed_calls).toBe(6);
  });

  it('writes no cost_usd and no replayed_calls when no record has them (never a made-up number)', () => {
    const summary = emptySummary();
    addTrajectory(summary, priced('a', undefined));
    const file = finaliseSummary(summary);
    expect(file).not.toHaveProperty('cost_usd');
    expect(file).not.toHaveProperty('replayed_calls');
  });
});
