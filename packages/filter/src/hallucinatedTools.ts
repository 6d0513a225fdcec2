// The hallucinated-tool filter (docs/rules.md#filters): a record that calls a
// tool name outside the valid set is dropped. Calls are read from the <tool_call> blocks of gpt turns
// and from tool_stats, so a record whose conversation was edited or compressed is still caught by its
// stats. A tool_stats key with count 0 is normalisation over some registry, not a call, so it is not
// checked: otherwise records normalised over another registry version would all be dropped.
import { offeredToolNames, type Trajectory } from '@hermes-datagen/core';
import { turnPlace, type TrajectoryView, type Verdict } from './trajectoryView.js';

export const HALLUCINATED_TOOL = 'hallucinated_tool';

const MAX_LISTED_PROBLEMS = 5;

export interface ToolNamePolicy {
  readonly valid: ReadonlySet<string>;
  /** Where the valid names come from, as details name it: "the tool registry", "--valid-tools". */
  readonly source: string;
  /** Also require every called tool to be offered in the record's own system turn. */
  readonly strictOffered: boolean;
}

export function hallucinatedTools(view: TrajectoryView, policy: ToolNamePolicy): Verdict | null {
  const problems: string[] = [];
  const reported = new Set<string>();
  let offered: ReadonlySet<string> | null | undefined;
  const check = (name: string, where: string): void => {
    if (reported.has(name)) return;
    let why: string | null = null;
    if (!policy.valid.has(name)) {
      why = `is not in ${policy.source}`;
    } else if (policy.strictOffered) {
      if (offered === undefined) offered = offeredIn(view.record);
      if (offered === null) why = 'cannot be checked against the offered tools: the record has no system turn with a readable <tools> list';
      else if (!offered.has(name)) why = 'is not offered in the system turn';
    }
    if (why === null) return;
    reported.add(name);
    problems.push(`${JSON.stringify(name)} (${where}) ${why}`);
  };

  for (const turn of view.gptTurns) {
    for (const call of turn.parsed.toolCalls) {
      if (call.error !== undefined) problems.push(`malformed <tool_call> in ${turnPlace(turn.index)}: ${call.error}`);
      else if (call.name !== null) check(call.name, turnPlace(turn.index));
    }
  }
  for (const [name, stat] of Object.entries(view.record.tool_stats)) {
    if (stat.count > 0) check(name, 'tool_stats');
  }
  if (problems.length === 0) return null;
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  if (problems.length > listed.length) listed.push(`and ${problems.length - listed.length} more`);
  return { reason: HALLUCINATED_TOOL, detail: listed.join('; ') };
}

function offeredIn(record: Trajectory): ReadonlySet<string> | null {
  const systemTurn = record.conversations.find((turn) => turn.from === 'system');
  const names = systemTurn ? offeredToolNames(systemTurn.value) : null;
  return names ? new Set(names) : null;
}
