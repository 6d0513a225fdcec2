// The structure check: every trajectory is shaped as upstream's conversion writes it
// (docs/record-format.md#conversations, docs/rules.md#think-blocks): roles in a legal order, each gpt turn one leading <think> block
// then text and <tool_call> blocks (JSON objects with a name and object arguments), each call answered
// by a <tool_response> block in the tool turn right after it, and no tag markup outside clean blocks.
import type { Turn } from '@hermes-datagen/core';
import { Examples, plural, worst, type CheckResult, type Status } from './checkResult.js';
import { scanMarkup, scanMarkupTokens, type MarkupTag } from './markup.js';
import { at, type GptTurn, type Observed, type StreamCheck } from './observed.js';

export type StructureKind =
  | 'role_order'
  | 'no_leading_think'
  | 'extra_think'
  | 'malformed_tool_call'
  | 'unanswered_tool_call'
  | 'unclosed_tag'
  | 'forged_tag'
  | 'misplaced_block';

/** Shapes upstream itself can write (reasoning plus a scratchpad gives two think blocks): worth a look, not a failure. */
const WARN_KINDS: ReadonlySet<StructureKind> = new Set(['extra_think']);

export interface StructureProblem {
  readonly kind: StructureKind;
  /** `conversations[3]: ...` */
  readonly detail: string;
}

const GPT_TAGS: ReadonlySet<MarkupTag> = new Set(['think', 'REASONING_SCRATCHPAD', 'tool_call']);
const TOOL_TAGS: ReadonlySet<MarkupTag> = new Set(['tool_response']);

/** Every structural problem of one trajectory, in turn order. */
export function structureProblems(conversations: readonly Turn[], gptTurns: readonly GptTurn[]): StructureProblem[] {
  const problems: StructureProblem[] = [];
  const add = (kind: StructureKind, index: number, detail: string): void => {
    problems.push({ kind, detail: `conversations[${index}]: ${detail}` });
  };
  let gpt = 0;
  /** The calls of the gpt turn just before, which the next turn must answer. */
  let pendingCalls = 0;
  conversations.forEach((turn, index) => {
    const roleProblem = roleOrderProblem(conversations, index);
    if (roleProblem !== null) add('role_order', index, roleProblem);
    if (turn.from === 'tool') {
      // Counted from the clean blocks of the markup scan: the conversion writes one block per call,
      // in call order (a block's own JSON is the tool's output, not structure, and is not parsed here).
      const scan = scanMarkup(turn.value, TOOL_TAGS);
      for (const problem of scan.problems) add(problem.kind, index, problem.detail);
      if (pendingCalls === 0 && conversations[index - 1]?.from === 'gpt') add('role_order', index, 'a tool turn after a gpt turn without <tool_call> blocks');
      else if (pendingCalls > 0 && scan.blocks.length !== pendingCalls)
        add(
          'unanswered_tool_call',
          index,
          `${plural(scan.blocks.length, '<tool_response>')} for ${plural(pendingCalls, '<tool_call>')} of conversations[${index - 1}]`,
        );
      pendingCalls = 0;
      return;
    }
    if (pendingCalls > 0) add('unanswered_tool_call', index - 1, `${plural(pendingCalls, '<tool_call>')} but no tool turn after it`);
    pendingCalls = 0;
    if (turn.from !== 'gpt') return;
    const read = gptTurns[gpt++];
    const calls = read?.parsed.toolCalls ?? [];
    const scan = read ? scanMarkupTokens(read.tokens, GPT_TAGS) : scanMarkup(turn.value, GPT_TAGS);
    for (const problem of scan.problems) add(problem.kind, index, problem.detail);
    if (scan.blocks[0] !== 'think' || turn.value.slice(0, scan.firstBlockAt).trim() !== '')
      add('no_leading_think', index, 'the gpt turn does not start with a <think> block');
    const thinks = scan.blocks.filter((tag) => tag === 'think').length;
    if (thinks > 1) add('extra_think', index, `${thinks} <think> blocks (one leading block expected)`);
    calls.forEach((call, k) => {
      if (call.error !== undefined) add('malformed_tool_call', index, `<tool_call> ${k + 1}: ${call.error}`);
    });
    pendingCalls = calls.length;
  });
  if (pendingCalls > 0) add('unanswered_tool_call', conversations.length - 1, `${plural(pendingCalls, '<tool_call>')} but no tool turn after it`);
  return problems;
}

/** Why the turn at `index` may not follow the one before it, or null. */
function roleOrderProblem(turns: readonly Turn[], index: number): string | null {
  const role = turns[index]?.from;
  const before = index > 0 ? turns[index - 1]?.from : undefined;
  if (role === 'system') return index === 0 ? null : 'a system turn after the first turn';
  if (before === undefined || before === 'system') return role === 'human' ? null : `the conversation starts with a ${String(role)} turn, not the human prompt`;
  if (role === 'tool' && before !== 'gpt') return `a tool turn after a ${before} turn (tool results answer a gpt turn's calls)`;
  if (role === before) return `two ${role} turns in a row`;
  return null;
}

export class StructureCheck implements StreamCheck {
  private trajectories = 0;
  private readonly failing = new Examples();
  private readonly warning = new Examples();
  private readonly byKind = new Map<StructureKind, number>();

  public observe(item: Observed): void {
    if (item.kind !== 'trajectory') return;
    this.trajectories += 1;
    const problems = structureProblems(item.record.conversations, item.gptTurns);
    if (problems.length === 0) return;
    for (const kind of new Set(problems.map((p) => p.kind))) this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    const serious = problems.filter((p) => !WARN_KINDS.has(p.kind));
    const shown = serious[0] ?? problems[0];
    if (shown === undefined) return;
    const more = problems.length > 1 ? ` (+${problems.length - 1} more in this record)` : '';
    (serious.length > 0 ? this.failing : this.warning).add(`${at(item.place, shown.detail)}${more}`);
  }

  public result(): CheckResult {
    const status: Status = worst(this.failing.count > 0 ? 'FAIL' : 'PASS', this.warning.count > 0 ? 'WARN' : 'PASS');
    const kinds = [...this.byKind].sort(([a], [b]) => a.localeCompare(b));
    const summary =
      kinds.length === 0
        ? `${plural(this.trajectories, 'trajectory', 'trajectories')}: roles, <think>, <tool_call> and <tool_response> blocks all well formed`
        : `${this.failing.count + this.warning.count} of ${this.trajectories} trajectories have problems (${kinds.map(([kind, n]) => `${kind} ${n}`).join(', ')})`;
    return {
      id: 'structure',
      title: 'turn structure: roles, one leading <think>, calls answered, no forged tags',
      status,
      summary,
      numbers: { trajectories: this.trajectories, with_problems: this.failing.count + this.warning.count, records_by_kind: Object.fromEntries(kinds) },
      problems: [...this.failing.list(), ...this.warning.list()],
    };
  }
}
