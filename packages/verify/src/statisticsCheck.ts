// statistics.json agrees with the records (docs/record-format.md#statistics; hermes-generate writes it
// over every record of the run): each tool's count / success / failure and rates, the reasoning
// counters, the discards, and, when the file has hermes-stats' extensions, its record counts.
import { isPlainObject, validator } from '@hermes-datagen/core';
import { Examples, type CheckResult, type Status } from './checkResult.js';
import { STATISTICS_FILE } from './runDirectory.js';
import type { RunFile } from './runFiles.js';
import type { RunTotals, ToolSums } from './runTotals.js';

const TITLE = `${STATISTICS_FILE} agrees with the records`;
/** Rates are written rounded to 2 decimals. */
const RATE_TOLERANCE = 0.006;

export function statisticsCheck(file: RunFile<unknown>, totals: RunTotals): CheckResult {
  const result = (status: Status, summary: string, numbers: Record<string, unknown> = {}, problems: string[] = []): CheckResult => ({
    id: 'run.statistics',
    title: TITLE,
    status,
    summary,
    numbers,
    problems,
  });
  if (file.state === 'absent') return result('WARN', `no ${STATISTICS_FILE} (written when an invocation ends)`);
  if (file.state === 'unreadable') return result('FAIL', file.problem);
  const problem = validator('statistics')(file.value);
  if (problem !== null || !isPlainObject(file.value)) return result('FAIL', `${STATISTICS_FILE} ${problem ?? 'is not a JSON object'}`);
  const stats = file.value;
  const differences = new Examples();
  let compared = 0;
  const compare = (field: string, stated: unknown, actual: number, tolerance = 0): void => {
    compared += 1;
    if (typeof stated !== 'number' || Math.abs(stated - actual) > tolerance)
      differences.add(`${field}: the file says ${JSON.stringify(stated ?? null)}, the records give ${actual}`);
  };

  const statedTools = isPlainObject(stats['tool_statistics']) ? stats['tool_statistics'] : {};
  const names = [...new Set([...Object.keys(statedTools), ...totals.tools.keys()])].sort();
  for (const name of names) {
    const stated = isPlainObject(statedTools[name]) ? statedTools[name] : {};
    const actual: ToolSums = totals.tools.get(name) ?? { count: 0, success: 0, failure: 0 };
    const answered = actual.success + actual.failure;
    const field = `tool_statistics.${name}`;
    compare(`${field}.count`, stated['count'] ?? 0, actual.count);
    compare(`${field}.success`, stated['success'] ?? 0, actual.success);
    compare(`${field}.failure`, stated['failure'] ?? 0, actual.failure);
    if (Object.hasOwn(statedTools, name)) {
      compare(`${field}.success_rate`, stated['success_rate'], answered === 0 ? 0 : (actual.success / answered) * 100, RATE_TOLERANCE);
      compare(`${field}.failure_rate`, stated['failure_rate'], answered === 0 ? 0 : (actual.failure / answered) * 100, RATE_TOLERANCE);
    }
  }

  const reasoning = isPlainObject(stats['reasoning_statistics']) ? stats['reasoning_statistics'] : {};
  compare('reasoning_statistics.total_assistant_turns', reasoning['total_assistant_turns'], totals.assistantTurns);
  compare('reasoning_statistics.turns_with_reasoning', reasoning['turns_with_reasoning'], totals.turnsWithReasoning);
  compare('reasoning_statistics.turns_without_reasoning', reasoning['turns_without_reasoning'], totals.assistantTurns - totals.turnsWithReasoning);
  if ('discarded_no_reasoning' in stats) compare('discarded_no_reasoning', stats['discarded_no_reasoning'], totals.discarded.get('no_reasoning') ?? 0);

  // hermes-stats' extensions (all present together, "format": "hermes-stats-summary/1").
  if ('format' in stats) {
    let calls = 0;
    let failures = 0;
    for (const sums of totals.tools.values()) {
      calls += sums.count;
      failures += sums.failure;
    }
    compare('trajectories', stats['trajectories'], totals.trajectories);
    compare('completed', stats['completed'], totals.completed);
    compare('partial', stats['partial'], totals.partial);
    compare('tool_calls', stats['tool_calls'], calls);
    compare('tool_failures', stats['tool_failures'], failures);
    const discarded = isPlainObject(stats['discarded']) ? stats['discarded'] : {};
    for (const reason of [...new Set([...Object.keys(discarded), ...totals.discarded.keys()])].sort())
      compare(`discarded.${reason}`, discarded[reason] ?? 0, totals.discarded.get(reason) ?? 0);
  }

  const status: Status = differences.count > 0 ? 'FAIL' : 'PASS';
  const summary =
    differences.count > 0
      ? `${differences.count} of ${compared} numbers differ from the ${totals.trajectories} trajectories and ${[...totals.discarded.values()].reduce((a, b) => a + b, 0)} tombstones of the batch files`
      : `${compared} numbers match the ${totals.trajectories} trajectories of the batch files`;
  return result(status, summary, { compared, differing: differences.count, tools: names.length }, differences.list());
}
