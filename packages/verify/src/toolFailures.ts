// Tool failure rate under --max-failure-rate, overall and per tool, from the records' tool_stats
// (the numbers statistics.json sums). A rate is failures / answered calls. A tool with only a few
// answered calls over the limit is a warning, not a failure: 1 failure in 2 calls says little.
import { Examples, pct, type CheckResult, type Status } from './checkResult.js';
import { at, type Observed, type StreamCheck } from './observed.js';

/** Answered calls a tool needs before its own rate can fail the check. */
export const MIN_CALLS_FOR_TOOL_RATE = 20;

interface Sums {
  count: number;
  success: number;
  failure: number;
}

export class ToolFailureCheck implements StreamCheck {
  private readonly tools = new Map<string, Sums>();
  private readonly worstRecords = new Examples(3);

  public constructor(private readonly maxRate: number) {}

  public observe(item: Observed): void {
    if (item.kind !== 'trajectory') return;
    let failures = 0;
    for (const [name, stat] of item.usedTools) {
      let sums = this.tools.get(name);
      if (!sums) {
        sums = { count: 0, success: 0, failure: 0 };
        this.tools.set(name, sums);
      }
      sums.count += stat.count;
      sums.success += stat.success;
      sums.failure += stat.failure;
      failures += stat.failure;
    }
    if (failures > 0) this.worstRecords.add(at(item.place, `prompt_index ${item.record.prompt_index}: ${failures} failed tool calls`));
  }

  public result(): CheckResult {
    const total: Sums = { count: 0, success: 0, failure: 0 };
    const perTool: Record<string, Sums & { failure_rate: number }> = {};
    const over: string[] = [];
    let status: Status = 'PASS';
    for (const [name, sums] of [...this.tools].sort(([a], [b]) => a.localeCompare(b))) {
      total.count += sums.count;
      total.success += sums.success;
      total.failure += sums.failure;
      const answered = sums.success + sums.failure;
      const rate = answered === 0 ? 0 : sums.failure / answered;
      perTool[name] = { ...sums, failure_rate: rate };
      if (rate > this.maxRate) {
        const enough = answered >= MIN_CALLS_FOR_TOOL_RATE;
        if (enough) status = 'FAIL';
        else if (status === 'PASS') status = 'WARN';
        over.push(
          `${name}: ${sums.failure} of ${answered} calls failed (${pct(sums.failure, answered)})${enough ? '' : `, too few calls to fail the check (< ${MIN_CALLS_FOR_TOOL_RATE})`}`,
        );
      }
    }
    const answered = total.success + total.failure;
    const rate = answered === 0 ? 0 : total.failure / answered;
    if (rate > this.maxRate) status = 'FAIL';
    const limit = `limit ${pct(this.maxRate, 1)}`;
    const unanswered = total.count - answered;
    const summary =
      answered === 0
        ? `no answered tool calls${total.count > 0 ? ` (${total.count} calls without a result)` : ''}`
        : `${total.failure} of ${answered} tool calls failed (${pct(total.failure, answered)}, ${limit})${over.length > 0 ? `; over the limit: ${over.length} tools` : ''}${unanswered > 0 ? `; ${unanswered} calls without a result` : ''}`;
    return {
      id: 'tool_failures',
      title: 'tool failure rate under --max-failure-rate, overall and per tool',
      status,
      summary,
      numbers: { max_failure_rate: this.maxRate, calls: total.count, answered, failures: total.failure, failure_rate: rate, unanswered, per_tool: perTool },
      problems: [...over, ...(status === 'PASS' ? [] : this.worstRecords.list())],
    };
  }
}
