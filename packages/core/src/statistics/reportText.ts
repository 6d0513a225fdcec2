// The console report: upstream Hermes' end-of-run summary (docs/record-format.md#the-console-report: the tool usage
// table sorted by count, then reasoning coverage and discarded samples), extended with completion,
// failures by tool, completion by model and the turns histogram. Rendered from the summary alone, so it
// shows exactly the numbers `report --json` prints.
import { binHistogram, binLabel } from './bins.js';
import type { StatisticsSummary } from './summary.js';

const RULE = '='.repeat(70);
const LINE = '-'.repeat(70);
const BAR_WIDTH = 40;
const HISTOGRAM_BINS = 20;

export function renderReportText(summary: StatisticsSummary): string {
  const lines: string[] = ['', RULE, '📊 HERMES-STATS REPORT', RULE];
  const { trajectories } = summary;
  lines.push(`✅ Trajectories: ${trajectories}`);
  lines.push(`✅ Completed: ${summary.completed} (${pct(summary.completed_rate)})`);
  lines.push(`⚠️  Partial: ${summary.partial} (${pct(summary.partial_rate)})`);
  if (summary.usage.trajectories > 0) {
    const { prompt_tokens, completion_tokens, total_tokens } = summary.usage;
    lines.push(
      `🔢 Tokens: ${total_tokens} total (${prompt_tokens} prompt, ${completion_tokens} completion) over ${summary.usage.trajectories} trajectories with usage`,
    );
  }
  lines.push(costLine(summary));
  if (summary.replayed_calls !== undefined) lines.push(`♻️  Replayed calls: ${summary.replayed_calls} (from the call journal on --resume, not bought again)`);

  lines.push('', '📈 Tool Usage Statistics:', LINE);
  const tools = Object.entries(summary.tool_statistics).sort(([, a], [, b]) => b.count - a.count);
  if (tools.length === 0) {
    lines.push('No tool calls were made during this run.');
  } else {
    lines.push(row(['Tool Name', 25], ['Count', 10], ['Success', 10], ['Failure', 10], ['Success Rate', 0]), LINE);
    for (const [name, s] of tools)
      lines.push(row([name, 25], [String(s.count), 10], [String(s.success), 10], [String(s.failure), 10], [pct(s.success_rate), 0]));
  }

  lines.push('', '🧠 Reasoning Coverage:');
  const { total_assistant_turns: total, turns_with_reasoning: withReasoning, turns_without_reasoning: without } = summary.reasoning_statistics;
  if (total === 0) {
    lines.push('   No assistant turns recorded.');
  } else {
    lines.push(`   Total assistant turns: ${total}`);
    lines.push(`   With reasoning: ${withReasoning} (${pct((withReasoning / total) * 100)})`);
    lines.push(`   Without reasoning: ${without} (${pct((without / total) * 100)})`);
  }
  if (summary.discarded_no_reasoning > 0) lines.push(`🚫 Samples discarded (zero reasoning): ${summary.discarded_no_reasoning}`);
  for (const [reason, n] of Object.entries(summary.discarded)) {
    if (reason !== 'no_reasoning') lines.push(`🚫 Samples discarded (${reason}): ${n}`);
  }

  lines.push('', '❌ Failures by Tool:');
  const failing = tools.filter(([, s]) => s.failure > 0).sort(([, a], [, b]) => b.failure - a.failure || b.failure_rate - a.failure_rate);
  if (failing.length === 0) {
    lines.push('   No tool call failed.');
  } else {
    lines.push(`   ${row(['Tool Name', 25], ['Failures', 10], ['Failure Rate', 0])}`);
    for (const [name, s] of failing) lines.push(`   ${row([name, 25], [String(s.failure), 10], [pct(s.failure_rate), 0])}`);
  }

  const models = Object.entries(summary.by_model);
  if (models.length > 0) {
    lines.push('', '🤖 Completion by Model:');
    lines.push(`   ${row(['Model', 40], ['Trajectories', 14], ['Completed', 11], ['Partial', 0])}`);
    for (const [model, g] of models) lines.push(`   ${row([model, 40], [String(g.trajectories), 14], [pct(g.completed_rate), 11], [pct(g.partial_rate), 0])}`);
  }

  lines.push('', '🔁 Turns per Trajectory:');
  if (summary.turns.min === null) {
    lines.push('   No trajectories.');
  } else {
    const t = summary.turns;
    lines.push(`   min ${t.min}, median ${shortNumber(t.median)}, p90 ${shortNumber(t.p90)}, max ${t.max}`);
    const bins = binHistogram(t.histogram, HISTOGRAM_BINS);
    const most = Math.max(...bins.map((b) => b.count));
    const labelWidth = Math.max(...bins.map((b) => binLabel(b).length));
    for (const bin of bins) {
      const bar = '█'.repeat(Math.round((bin.count / most) * BAR_WIDTH));
      lines.push(`   ${binLabel(bin).padStart(labelWidth)} │${bar} ${bin.count}`);
    }
  }
  lines.push(RULE);
  return `${lines.join('\n')}\n`;
}

/** An interpolated quantile such as 6.1000000000000005, as a person reads it (6.1). */
export function shortNumber(value: number | null): string {
  return value === null ? '-' : String(Number(value.toFixed(2)));
}

/** Upstream prints rates with one decimal. */
function pct(rate: number): string {
  return `${rate.toFixed(1)}%`;
}

/** Left-aligned cells of at least the given width, one space apart (width 0: as it is). */
function row(...cells: readonly (readonly [string, number])[]): string {
  return cells
    .map(([text, width]) => text.padEnd(width))
    .join(' ')
    .trimEnd();
}

/** The dollars, or where to get them: never a made-up number. */
function costLine({ cost_usd: cost }: StatisticsSummary): string {
  if (cost === undefined) return `💵 Cost: ${NOT_PRICED}`;
  return `💵 Cost: $${cost.total} over ${cost.trajectories} priced trajectories ($${cost.per_trajectory} each; a sub-agent's in its parent's)`;
}

/** What the reports say when no record is priced. */
export const NOT_PRICED = 'not priced (hermes-generate --prices FILE, or prices: in --config, gives each record metadata.cost_usd)';
