// The success-rate denominator: calls with a result (success + failure), not every call. A call whose
// result is missing counts in `count` only, so it moves neither rate; a tool with no result at all has
// rates of 0. The stream summary and the SQL report must agree on it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, jsonl, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { trajectory } from '../util/trajectories.js';

const BIN = binPath('stats', 'hermes-stats');

interface Rates {
  count: number;
  success: number;
  failure: number;
  success_rate: number;
  failure_rate: number;
}

const records = [
  // terminal: 5 calls, 3 with a result (2 succeeded, 1 failed), 2 without one.
  trajectory({ id: 'a', tool_stats: { terminal: { count: 3, success: 1, failure: 1 } } }),
  trajectory({ id: 'b', tool_stats: { terminal: { count: 2, success: 1, failure: 0 } } }),
  // read_file: called, never answered.
  trajectory({ id: 'c', tool_stats: { read_file: { count: 2, success: 0, failure: 0 } } }),
  // write_file: a third each way, where rounding shows.
  trajectory({ id: 'd', tool_stats: { write_file: { count: 3, success: 2, failure: 1 } } }),
];

const expected: Record<string, Rates> = {
  terminal: { count: 5, success: 2, failure: 1, success_rate: 66.67, failure_rate: 33.33 },
  read_file: { count: 2, success: 0, failure: 0, success_rate: 0, failure_rate: 0 },
  write_file: { count: 3, success: 2, failure: 1, success_rate: 66.67, failure_rate: 33.33 },
};

describe('success_rate and failure_rate', () => {
  it('divide by the calls with a result, in the stream summary and in the report alike', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': jsonl(records) });
    const stage = await runProcess(BIN, ['--summary', 'summary.json', 'in.jsonl', '-o', 'out.jsonl'], { cwd: dir });
    expect(stage.code, stage.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
      tool_statistics: Record<string, Rates>;
      tool_calls: number;
      tool_failures: number;
    };
    expect(summary.tool_statistics).toEqual(expected);
    expect(summary.tool_calls).toBe(10);
    expect(summary.tool_failures).toBe(2);

    const report = await runProcess(BIN, ['report', '--json', 'in.jsonl'], { cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    expect((JSON.parse(report.stdout) as { tool_statistics: Record<string, Rates> }).tool_statistics).toEqual(expected);
  });
});
