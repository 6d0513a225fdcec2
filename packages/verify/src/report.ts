// The checklist as people read it (stderr) and as machines read it (--json): the same results.
import type { Writable } from 'node:stream';
import { ExitCode, VERSION } from '@hermes-datagen/core';
import { worst, type CheckResult, type Status } from './checkResult.js';

export interface ReportContext {
  readonly inputs: readonly string[];
  readonly runDir: string | undefined;
  readonly dataset: { readonly path: string; readonly rows: number; readonly sha256: string } | undefined;
  readonly samples: number;
  readonly maxFailureRate: number;
  readonly records: number;
}

export interface Report {
  readonly tool: 'hermes-verify';
  readonly version: string;
  readonly status: Status;
  readonly exit_code: number;
  readonly inputs: readonly string[];
  readonly run_dir: string | null;
  readonly dataset: ReportContext['dataset'] | null;
  readonly samples: number;
  readonly max_failure_rate: number;
  readonly records: number;
  readonly counts: Record<Status, number>;
  readonly checks: readonly CheckResult[];
}

/** 1 when any check failed (so make and CI stop), else 0: warnings do not fail a run. */
export function exitCodeOf(results: readonly CheckResult[]): number {
  return results.some((r) => r.status === 'FAIL') ? ExitCode.checksFailed : ExitCode.ok;
}

export function buildReport(results: readonly CheckResult[], context: ReportContext): Report {
  const counts: Record<Status, number> = { PASS: 0, WARN: 0, FAIL: 0 };
  for (const r of results) counts[r.status] += 1;
  return {
    tool: 'hermes-verify',
    version: VERSION,
    status: worst(...results.map((r) => r.status)),
    exit_code: exitCodeOf(results),
    inputs: context.inputs,
    run_dir: context.runDir ?? null,
    dataset: context.dataset ?? null,
    samples: context.samples,
    max_failure_rate: context.maxFailureRate,
    records: context.records,
    counts,
    checks: results,
  };
}

const COLOURS: Record<Status, number> = { PASS: 32, WARN: 33, FAIL: 31 };

/** The human checklist: one line per check, then the located examples under each WARN and FAIL. */
export function printChecklist(stream: Writable, name: string, report: Report, color: boolean): void {
  const paint = (status: Status): string => (color ? `\u001b[${COLOURS[status]}m${status}\u001b[0m` : status);
  const width = Math.max(...report.checks.map((c) => c.id.length));
  const checked = report.inputs.length > 0 ? `${report.inputs.join(' ')} (${report.records} records)` : 'no record stream';
  const lines = [`${name}: checklist of ${checked}${report.run_dir ? `, run directory ${report.run_dir}` : ''}`];
  for (const check of report.checks) {
    lines.push(`  ${paint(check.status)}  ${check.id.padEnd(width)}  ${check.summary}`);
    if (check.status !== 'PASS') for (const problem of check.problems) lines.push(`  ${' '.repeat(4 + width + 2)}  - ${problem}`);
  }
  const { PASS, WARN, FAIL } = report.counts;
  lines.push(`${name}: ${FAIL > 0 ? paint('FAIL') : WARN > 0 ? paint('WARN') : paint('PASS')}: ${FAIL} failed, ${WARN} warnings, ${PASS} passed`);
  stream.write(`${lines.join('\n')}\n`);
}
