// Groups held only until complete, bounded in number; incomplete ones reported.
import { describe, expect, it } from 'vitest';
import { GroupBuffer, groupKey, parseGroupSize, type Group, type Member } from '@hermes-datagen/to-atropos/internal/groups.js';
import { human, system, trajectory } from '../util/trajectories.js';

const member = (promptIndex: number, line: number): Member => ({ record: trajectory({ prompt_index: promptIndex }), place: { source: 'in', line }, score: 0 });
const keyOf = (m: Member) => groupKey(m.record, 'prompt_index');
const lines = (groups: readonly Group[]) => groups.map((g) => g.members.map((m) => m.place.line));

describe('GroupBuffer', () => {
  it('--group-size N emits each group at its N-th member, splits extra members, reports leftovers', () => {
    const incomplete: Group[] = [];
    const buffer = new GroupBuffer(2, 10, false, (g) => incomplete.push(g));
    const done = [member(0, 1), member(1, 2), member(0, 3), member(0, 4), member(0, 5), member(1, 6), member(2, 7)].flatMap((m) => buffer.add(keyOf(m), m));
    expect(lines(done)).toEqual([
      [1, 3],
      [4, 5],
      [2, 6],
    ]);
    expect(buffer.finish()).toEqual([]);
    expect(lines(incomplete)).toEqual([[7]]);
  });

  it('auto holds groups to the end, or with --sorted until the key changes', () => {
    const input = [member(0, 1), member(0, 2), member(1, 3), member(1, 4), member(2, 5)];
    const unsorted = new GroupBuffer('auto', 10, false, () => undefined);
    expect(input.flatMap((m) => unsorted.add(keyOf(m), m))).toEqual([]);
    expect(lines(unsorted.finish())).toEqual([[1, 2], [3, 4], [5]]);
    const sorted = new GroupBuffer('auto', 1, true, () => undefined);
    expect(lines(input.flatMap((m) => sorted.add(keyOf(m), m)))).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(lines(sorted.finish())).toEqual([[5]]);
  });

  it('stops with a usage error naming the remedies when too many groups are open', () => {
    const buffer = new GroupBuffer('auto', 2, false, () => undefined);
    buffer.add('a', member(0, 1));
    buffer.add('b', member(1, 2));
    expect(() => buffer.add('c', member(2, 3))).toThrow(/more than 2 groups are open.*--sorted/);
  });
});

describe('groupKey and --group-size', () => {
  it('keys by prompt_index or by the first human turn', () => {
    const a = trajectory({ prompt_index: 1, conversations: [system(), human('same')] });
    const b = trajectory({ prompt_index: 2, conversations: [system(), human('same')] });
    expect(groupKey(a, 'prompt_index')).not.toBe(groupKey(b, 'prompt_index'));
    expect(groupKey(a, 'prompt')).toBe(groupKey(b, 'prompt'));
    expect(groupKey(a, 'prompt')).not.toBe(groupKey(trajectory({ conversations: [human('other')] }), 'prompt'));
  });
  it('parses N and auto and refuses the rest', () => {
    expect(parseGroupSize('4')).toBe(4);
    expect(parseGroupSize('auto')).toBe('auto');
    expect(() => parseGroupSize('0')).toThrow(/positive integer or auto/);
    expect(() => parseGroupSize('two')).toThrow(/positive integer or auto/);
  });
});
