// The main job as a user types it: the six CLIs as real processes connected by pipes in one shell
// command, on the demo's prompts (fixtures/prompts.jsonl, with their workspaces) against the scripted
// endpoint, tools executed for real. The outputs at the end of the pipe are checked against each other:
// one record per prompt, every record valid, the checklist all PASS, the SFT lines well formed, and the
// DuckDB report equal to the summary the stream stage wrote (and its compression figures to hermes-compress's).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validator } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, parseJsonl, REPO_ROOT, runCommand, runProcess, tempDir } from '../util/cli.js';
import { expectNoSecret } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

const PROMPTS = 'fixtures/prompts.jsonl';

const shell = (script: string, env: NodeJS.ProcessEnv) => runCommand('bash', ['-c', script], { env });

const bin = (pkg: string) => `node ${binPath(pkg, `hermes-${pkg}`)}`;
const lines = (file: string) => parseJsonl(readFileSync(file, 'utf8')) as Record<string, unknown>[];

describe('the pipeline: generate | filter | compress | stats | verify | to-atropos', () => {
  it('turns every demo prompt into one valid, checked, exported record, and the report agrees with the stream summary', async () => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY });
    const out = tempDir('hermes-pipeline-');
    const rows = lines(join(REPO_ROOT, PROMPTS));
    const o = (file: string) => join(out, file);
    const result = await shell(
      `set -o pipefail\n${[
        `${bin('generate')} ${PROMPTS} --run-name pipe --output-root ${o('runs')} --base-url ${endpoint.url} --model scripted --distribution development --seed 1 -c 8 2> ${o('generate.log')}`,
        `  | ${bin('filter')} --rejects ${o('rejected.jsonl')}`,
        `  | ${bin('compress')} --ratio 0.15 --min-tokens-after 800 --max-tokens-after 6000 --metrics-file ${o('compression.json')}`,
        `  | ${bin('stats')} --summary ${o('statistics.json')} | tee ${o('trajectories.jsonl')}`,
        `  | ${bin('verify')} --dataset ${PROMPTS} --dropped ${o('rejected.jsonl')} --dropped ${o('runs/pipe/failures.jsonl')} --json ${o('verify.json')}`,
        `  | ${bin('to-atropos')} --emit sft --reward-rules default --keep-uniform > ${o('sft.jsonl')}`,
      ].join(' \\\n')}`,
      { HERMES_API_KEY: TEST_API_KEY },
    );
    expect(result.code, `${result.stderr}\n${readFileSync(o('generate.log'), 'utf8')}`).toBe(0);

    // One trajectory per prompt, each valid, with the prompt's id; nothing filtered out.
    const records = lines(o('trajectories.jsonl'));
    const isTrajectory = validator('trajectory');
    for (const record of records) expect(isTrajectory(record), String(record['id'])).toBeNull();
    expect(records.map((r) => r['id']).sort()).toEqual(rows.map((r) => r['id']).sort());
    expect(readFileSync(o('rejected.jsonl'), 'utf8')).toBe('');
    const toolCalls = records.flatMap((r) =>
      Object.entries(r['tool_stats'] as Record<string, { count: number }>)
        .filter(([, s]) => s.count > 0)
        .map(([name]) => name),
    );
    expect(new Set(toolCalls)).toEqual(new Set(['terminal', 'read_file', 'write_file', 'patch', 'search_files']));

    // hermes-compress: every record counted by status, none grown.
    const metrics = JSON.parse(readFileSync(o('compression.json'), 'utf8')) as {
      by_status: Record<string, number>;
      summary: { trajectories_compressed: number };
      tokens: { total_before: number; total_after: number };
    };
    expect(Object.values(metrics.by_status).reduce((a, b) => a + b, 0)).toBe(rows.length);
    for (const record of records) {
      const { tokens_before: before, tokens_after: after } = (
        record['metadata'] as { compression: { tokens_before: number | null; tokens_after: number | null } }
      ).compression;
      if (before !== null && after !== null) expect(after).toBeLessThanOrEqual(before);
    }

    // The checklist, on the stream and on the run directory hermes-generate kept.
    const verify = JSON.parse(readFileSync(o('verify.json'), 'utf8')) as { status: string; records: number; checks: { id: string; status: string }[] };
    expect(verify.records).toBe(rows.length);
    expect(verify.checks.filter((c) => c.status !== 'PASS')).toEqual([]);
    const runCheck = await runProcess(binPath('verify', 'hermes-verify'), ['--run-dir', o('runs/pipe'), '--dataset', PROMPTS, '-q', '--json', '-'], {
      env: { HERMES_API_KEY: TEST_API_KEY },
    });
    expect(runCheck.code, runCheck.stderr).toBe(0);
    expect((JSON.parse(runCheck.stdout) as typeof verify).checks.filter((c) => c.status !== 'PASS')).toEqual([]);

    // SFT lines: one per prompt (groups of one kept), system, user with the prompt, then assistant/tool turns.
    const sft = lines(o('sft.jsonl')) as { messages: { role: string; content: string }[]; score: number }[];
    expect(sft).toHaveLength(rows.length);
    const prompts = new Set(rows.map((r) => r['prompt']));
    for (const example of sft) {
      expect(Object.keys(example).sort()).toEqual(['messages', 'score']);
      expect(typeof example.score).toBe('number');
      expect(example.messages.slice(0, 2).map((m) => m.role)).toEqual(['system', 'user']);
      expect(prompts.has(example.messages[1]?.content)).toBe(true);
      for (const message of example.messages.slice(2)) expect(['assistant', 'tool', 'user']).toContain(message.role);
      expect(example.messages.at(-1)?.role).toBe('assistant');
      for (const message of example.messages) expect(typeof message.content).toBe('string');
    }

    // DuckDB's report over the final records = the stream stage's summary, number for number.
    const report = await runProcess(binPath('stats', 'hermes-stats'), ['report', '--json', o('trajectories.jsonl')]);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout)).toEqual(JSON.parse(readFileSync(o('statistics.json'), 'utf8')));
    // And its compression figures = hermes-compress's metrics (most demo records are skipped, not compressed).
    const html = await runProcess(binPath('stats', 'hermes-stats'), ['report', '--html', o('report.html'), o('trajectories.jsonl')]);
    expect(html.code, html.stderr).toBe(0);
    const extras = /<script type="application\/json" id="hermes-stats-extras">(.*?)<\/script>/s.exec(readFileSync(o('report.html'), 'utf8'))?.[1];
    expect(JSON.parse(extras ?? 'null')).toMatchObject({
      compression: {
        trajectories: rows.length,
        compressed: metrics.summary.trajectories_compressed,
        statuses: metrics.by_status,
        tokens_before: metrics.tokens.total_before,
        tokens_after: metrics.tokens.total_after,
      },
    });
    expectNoSecret(out, result);
  });
});
