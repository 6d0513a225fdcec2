import { describe, expect, it } from 'vitest';
import { UsageError, type DataRecord, type JsonObject, type Tombstone, type TombstoneRecord, type Trajectory } from '@hermes-datagen/core';
import { judge, withVerdict } from '@hermes-datagen/filter/internal/judge.js';
import { selectRules, type FilterOptions } from '@hermes-datagen/filter/internal/ruleSet.js';
import { gpt, human, system, trajectory } from '../util/trajectories.js';

const defaults: FilterOptions = {
  zeroReasoning: true,
  hallucinatedTools: true,
  strictOffered: false,
  requireCompleted: false,
  dropPartial: false,
  repeatedThought: false,
  emptyAction: false,
};
const line = (value: object) => {
  const raw = JSON.stringify(value);
  return { raw, bytes: Buffer.from(raw), place: { source: 'in.jsonl', line: 1 } };
};
const input = (value: Trajectory): DataRecord<Trajectory> => ({ ...line(value), kind: 'record', value });
const tombstoneRow = (value: Tombstone & JsonObject): TombstoneRecord => ({ ...line(value), kind: 'tombstone', value });
const rules = (options: Partial<FilterOptions> = {}): ReturnType<typeof selectRules> => selectRules({ ...defaults, ...options }, process.cwd());

describe('judge', () => {
  const good = trajectory();
  const noReasoningUnknownTool = trajectory({ completed: false, conversations: [system(), human(), gpt({ calls: [{ name: 'web_search_v2' }] })] });

  it('keeps a record that passes the default rules', () => {
    expect(judge(input(good), rules())).toBeNull();
  });

  it('drops by the first failing rule in the fixed order', () => {
    expect(judge(input(noReasoningUnknownTool), rules())?.reason).toBe('zero_reasoning');
    expect(judge(input(noReasoningUnknownTool), rules({ requireCompleted: true }))?.reason).toBe('not_completed');
    expect(judge(input(noReasoningUnknownTool), rules({ zeroReasoning: false }))?.reason).toBe('hallucinated_tool');
    expect(judge(input(noReasoningUnknownTool), rules({ zeroReasoning: false, hallucinatedTools: false }))).toBeNull();
  });

  it('never keeps a tombstone row', () => {
    expect(judge(tombstoneRow({ prompt_index: 3, discarded: 'no_reasoning', prompt: 'Why?' }), [])).toEqual({
      reason: 'tombstone',
      detail: 'a tombstone row (discarded: no_reasoning)',
    });
  });

  it('takes the valid tools from --valid-tools instead of the registry', () => {
    const calls = trajectory({ conversations: [system(), human(), gpt({ think: 'x', calls: [{ name: 'my_tool' }] })] });
    expect(judge(input(calls), rules())?.detail).toBe('"my_tool" (conversations[2]) is not in the tool registry');
    expect(judge(input(calls), rules({ validTools: 'terminal, my_tool' }))).toBeNull();
    expect(
      judge(
        input(trajectory({ conversations: [system(), human(), gpt({ think: 'x', calls: [{ name: 'terminal' }, { name: 'read_file' }] })] })),
        rules({ validTools: 'terminal' }),
      )?.detail,
    ).toBe('"read_file" (conversations[2]) is not in --valid-tools');
  });
});

describe('selectRules', () => {
  it.each<[string, Partial<FilterOptions>, RegExp]>([
    ['a ratio above 1', { minReasoningRatio: 1.5 }, /--min-reasoning-ratio must be a share between 0 and 1/],
    ['a negative failure rate', { maxToolFailureRate: -0.1 }, /--max-tool-failure-rate must be a share/],
    ['a non-number', { maxToolFailureRate: Number.NaN }, /--max-tool-failure-rate must be a share/],
    ['a fractional turn count', { minTurns: 1.5 }, /--min-turns must be a whole number/],
    ['a streak of 0', { toolErrorStreak: 0 }, /--tool-error-streak must be a whole number of at least 1/],
    ['min above max', { minTurns: 5, maxTurns: 2 }, /--min-turns 5 is above --max-turns 2/],
    ['a window without --repeated-thought', { repeatedThoughtWindow: 3 }, /add --repeated-thought/],
    [
      '--strict-offered with the tool filter off',
      { hallucinatedTools: false, strictOffered: true },
      /--strict-offered configures the hallucinated-tool filter/,
    ],
    ['--valid-tools with no name', { validTools: ' , ' }, /--valid-tools lists no tool name/],
    [
      'a registry file that does not exist',
      { toolsRegistry: 'no-such-registry.json' },
      /cannot read --tools-registry no-such-registry\.json \(ENOENT\): check the path/,
    ],
  ])('refuses %s with a usage error that says what to do', (_name, options, message) => {
    let error: unknown;
    try {
      rules(options);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('has only the two default rules by default', () => {
    expect(rules()).toHaveLength(2);
    expect(rules({ zeroReasoning: false, hallucinatedTools: false })).toHaveLength(0);
  });
});

describe('withVerdict', () => {
  const verdict = { reason: 'zero_reasoning', detail: 'say "why"' };

  it('appends reason and detail and keeps the record text byte for byte', () => {
    const raw = '{"z":1,  "a":"é\\u00e9 ✓"}';
    const line = withVerdict(raw, verdict);
    expect(line.startsWith(raw.slice(0, -1))).toBe(true);
    expect(JSON.parse(line)).toEqual({ z: 1, a: 'éé ✓', reason: 'zero_reasoning', detail: 'say "why"' });
  });

  it('handles trailing spaces and an empty object', () => {
    expect(withVerdict('{"a":1} \t', verdict)).toBe('{"a":1,"reason":"zero_reasoning","detail":"say \\"why\\""}');
    expect(JSON.parse(withVerdict('{ }', verdict))).toEqual(verdict);
  });
});
