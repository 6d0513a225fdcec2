// Running hermes-verify in-process and reading its --json report.
import { spec } from '@hermes-datagen/verify';
import { runInProcess, type RunOptions } from '../util/cli.js';

export interface CheckView {
  id: string;
  status: 'PASS' | 'WARN' | 'FAIL';
  summary: string;
  numbers: Record<string, unknown>;
  problems: string[];
}

export interface VerifyOutcome {
  code: number;
  stderr: string;
  report: { status: string; exit_code: number; records: number; checks: CheckView[] };
  check(id: string): CheckView;
}

/** hermes-verify -q --json - ARGS: the report from stdout, the checklist on stderr. */
export async function verifyReport(args: readonly string[], options: RunOptions = {}): Promise<VerifyOutcome> {
  const res = await runInProcess(spec, ['-q', '--json', '-', ...args], options);
  if (res.stdout === '') throw new Error(`no report (exit ${res.code}): ${res.stderr}`);
  const report = JSON.parse(res.stdout) as VerifyOutcome['report'];
  return {
    code: res.code,
    stderr: res.stderr,
    report,
    check: (id) => {
      const found = report.checks.find((c) => c.id === id);
      if (!found) throw new Error(`no check ${id} in ${report.checks.map((c) => c.id).join(', ')}`);
      return found;
    },
  };
}

/** The statuses of every check, keyed by id: the compact form the tests compare. */
export function statuses(outcome: VerifyOutcome): Record<string, string> {
  return Object.fromEntries(outcome.report.checks.map((c) => [c.id, c.status]));
}
