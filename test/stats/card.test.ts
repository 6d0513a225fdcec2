// hermes-stats card: a Hugging Face dataset folder. DuckDB reads every shard back with one read_parquet glob
// and one schema; the rows are the records (or their chat form) in input order; the card's front matter is
// the Hub's, and every number in its body equals the stream stage's statistics.json of the same inputs; the
// run's key and its fingerprint appear nowhere; a failed run leaves the earlier card as it was.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { toOpenAIChat, trajectoryId, type StatisticsSummary, type Trajectory } from '@hermes-datagen/core';
import { spec } from '@hermes-datagen/stats';
import { DATASET_COLUMNS } from '@hermes-datagen/stats/internal/card/datasetRows.js';
import { jsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { rawGpt, trajectory } from '../util/trajectories.js';
import { syntheticRecords } from './analysisFixtures.js';

const FINGERPRINT = 'abcdef12';
const SECRET = 'sk-proj-CARDTESTsecret0123456789abcdefXYZ';
const records = syntheticRecords(45).map((r, i) => ({
  ...r,
  metadata: {
    ...r.metadata,
    key_fingerprint: FINGERPRINT,
    ...(i % 3 === 0 ? { served_model: `${r.metadata.model}-served` } : {}),
    ...(i % 5 === 0 ? { compression: { tokens_before: 1000 + i, tokens_after: 400, status: 'compressed', strategy: 'key_decision_extract' } } : {}),
    ...(i % 5 === 1 ? { compression: { tokens_before: null, tokens_after: null, status: 'skipped', strategy: null } } : {}),
  },
}));
const tombstones = [
  { id: 't1', prompt_index: 900, discarded: 'no_reasoning', prompt: 'x' },
  { id: 't2', prompt_index: 901, discarded: 'no_reasoning', prompt: 'y' },
];
const manifest = {
  version: 1,
  run_name: 'run1',
  created_at: '2026-12-01T00:00:00Z',
  dataset: { paths: ['prompts.jsonl'], sha256: null },
  endpoint: { host: 'gateway.example:8443', model: 'test/model', key_fingerprint: FINGERPRINT },
  tool_registry_sha256: 'feedface',
  seed: 7,
  shard: null,
  invocations: [
    { hermes_datagen: '0.1.0', settings: { temperature: 0.6, maxTurns: 12, baseUrl: 'https://u:pw@gateway.example', apiKeyEnv: 'X', note: SECRET } },
  ],
};
const filterStats = { command: 'hermes-filter', counters: { kept: 45, dropped: 3, 'dropped.zero_reasoning': 2, 'dropped.hallucinated_tool': 1 } };

let duck: DuckDBInstance;
beforeAll(async () => {
  duck = await DuckDBInstance.create(':memory:');
});
afterAll(() => duck.closeSync());

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const connection = await duck.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
  }
}

function setUp(): string {
  const dir = tempDir();
  writeFiles(dir, {
    'run1/batch_0.jsonl': jsonl([...records.slice(0, 20), tombstones[0]]),
    'run1/batch_1.jsonl': jsonl([...records.slice(20), tombstones[1]]),
    'run1/run.json': JSON.stringify(manifest),
    'filter.json': JSON.stringify(filterStats),
  });
  return dir;
}

async function card(dir: string, args: string[]) {
  return runInProcess(spec, ['card', '--out', 'ds', '--license', 'cc-by-4.0', '--rows-per-file', '20', ...args], { cwd: dir });
}

/** The rows of the markdown table that follows a heading. */
function tableAfter(readme: string, heading: string, nth = 0): string[][] {
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThan(-1);
  const section = readme.slice(start + heading.length + 2);
  const blocks = (section.split('\n## ')[0] ?? '').split(/\n\n/).map((block) => block.trim());
  const tables = blocks.filter((block) => block.startsWith('|'));
  return (tables[nth] ?? '')
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.replaceAll('`', '')),
    );
}

describe('hermes-stats card --format chat (default)', () => {
  let dir: string;
  let readme: string;
  let summary: StatisticsSummary;
  beforeAll(async () => {
    dir = setUp();
    const stats = await runInProcess(spec, ['--summary', 'statistics.json', 'run1/batch_0.jsonl', 'run1/batch_1.jsonl', '-o', 'normalised.jsonl'], {
      cwd: dir,
    });
    expect(stats.code).toBe(0);
    summary = JSON.parse(readFileSync(join(dir, 'statistics.json'), 'utf8')) as StatisticsSummary;
    const result = await card(dir, ['--tag', 'my-tag', '--stage-stats', 'filter.json', 'run1']);
    expect(result.stderr).toMatch(/wrote 45 rows in 3 Parquet files/);
    expect(result.code).toBe(0);
    readme = readFileSync(join(dir, 'ds/README.md'), 'utf8');
  });

  it('writes train-0000N-of-0000M shards that DuckDB reads back with one glob and one schema, rows in input order', async () => {
    expect(readdirSync(join(dir, 'ds/data'))).toEqual(['train-00000-of-00003.parquet', 'train-00001-of-00003.parquet', 'train-00002-of-00003.parquet']);
    expect(readdirSync(join(dir, 'ds')).sort()).toEqual(['README.md', 'data']);
    const glob = `read_parquet('${join(dir, 'ds/data/*.parquet')}')`;
    const schema = await query(`DESCRIBE SELECT * FROM ${glob}`);
    expect(schema.map((c) => [c['column_name'], c['column_type']])).toEqual(DATASET_COLUMNS.chat.map((c) => [c.name, c.type]));
    const rows = await query(
      `SELECT id, to_json(messages) AS messages, tools FROM read_parquet('${join(dir, 'ds/data/*.parquet')}', filename = true, file_row_number = true) ORDER BY filename, file_row_number`,
    );
    expect(rows.map((r) => r['id'])).toEqual(records.map((r) => trajectoryId(r as Trajectory)));
    for (const [i, row] of rows.entries()) {
      const chat = toOpenAIChat(records[i] as Trajectory, row['id'] as string, { field: 'reasoning_content' });
      if ('problem' in chat) throw new Error(chat.problem);
      const withoutNulls = (JSON.parse(row['messages'] as string) as Record<string, unknown>[]).map((m) =>
        Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null)),
      );
      expect(withoutNulls).toEqual(chat.messages);
      expect(JSON.parse(row['tools'] as string)).toEqual(chat.tools);
    }
  });

  it("has the Hub's front matter: configs with data_files, the license, languages, task categories, size category, tags", () => {
    const front = parseYaml(readme.split('---\n')[1] as string) as Record<string, unknown>;
    expect(front).toEqual({
      pretty_name: 'ds',
      license: 'cc-by-4.0',
      language: ['en'],
      task_categories: ['text-generation'],
      size_categories: ['n<1K'],
      tags: ['hermes-datagen', 'agent-trajectories', 'tool-calling', 'synthetic', 'my-tag'],
      configs: [{ config_name: 'default', data_files: [{ split: 'train', path: 'data/train-*' }] }],
    });
  });

  it("every number in the body is statistics.json's", () => {
    const counts = Object.fromEntries(tableAfter(readme, '## Counts').map(([name, value]) => [name, value]));
    expect(counts).toMatchObject({
      trajectories: String(summary.trajectories),
      completed: `${summary.completed} (${summary.completed_rate}%)`,
      partial: `${summary.partial} (${summary.partial_rate}%)`,
      'prompt tokens': String(summary.usage.prompt_tokens),
      'completion tokens': String(summary.usage.completion_tokens),
    });
    expect(counts['api calls']).toMatch(new RegExp(`^${summary.api_calls.total} `));
    expect(tableAfter(readme, '## Tools')).toEqual(
      Object.entries(summary.tool_statistics).map(([name, s]) => [name, String(s.count), String(s.success), String(s.failure), `${s.success_rate}%`]),
    );
    expect(tableAfter(readme, '## Models')).toEqual(
      Object.entries(summary.by_model).map(([m, g]) => [
        m,
        String(g.trajectories),
        `${g.completed} (${g.completed_rate}%)`,
        String(g.tool_calls),
        String(g.tool_failures),
      ]),
    );
    expect(tableAfter(readme, '## Toolsets')).toEqual(
      Object.entries(summary.by_toolset).map(([m, g]) => [
        m,
        String(g.trajectories),
        `${g.completed} (${g.completed_rate}%)`,
        String(g.tool_calls),
        String(g.tool_failures),
      ]),
    );
    const reasoning = tableAfter(readme, '## Reasoning');
    expect(reasoning[0]).toEqual(['assistant turns', String(summary.reasoning_statistics.total_assistant_turns)]);
    expect(reasoning[1]?.[1]).toMatch(new RegExp(`^${summary.reasoning_statistics.turns_with_reasoning} `));
    expect(tableAfter(readme, '## Filters and drops')).toEqual(Object.entries(summary.discarded).map(([reason, n]) => [reason, String(n)]));
    expect(tableAfter(readme, '## Filters and drops', 1)).toEqual([
      ['hermes-filter', 'kept', '45'],
      ['hermes-filter', 'dropped', '3'],
      ['hermes-filter', 'dropped.zero_reasoning', '2'],
      ['hermes-filter', 'dropped.hallucinated_tool', '1'],
    ]);
    const served = new Map<string, number>();
    for (const r of records) {
      const name = (r.metadata as Record<string, unknown>)['served_model'];
      if (typeof name === 'string') served.set(name, (served.get(name) ?? 0) + 1);
    }
    expect(tableAfter(readme, '## Models', 1)).toEqual([...served].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, n]) => [m, String(n)]));
  });

  it('counts what hermes-compress did from metadata.compression', () => {
    const compressed = records.filter((_, i) => i % 5 === 0);
    expect(tableAfter(readme, '## Compression')).toEqual([
      ['compressed', String(compressed.length)],
      ['skipped', String(records.filter((_, i) => i % 5 === 1).length)],
      ['none', String(records.filter((_, i) => i % 5 > 1).length)],
    ]);
    expect(tableAfter(readme, '## Compression', 1)).toEqual([['key_decision_extract', String(compressed.length)]]);
    const before = compressed.reduce((n, r) => n + (r.metadata.compression?.tokens_before as number), 0);
    expect(readme).toContain(`Tokens over the ${compressed.length} records counted: ${before} before, ${400 * compressed.length} after.`);
  });

  it("shows the run's generation settings, never the key, its fingerprint or a URL", () => {
    expect(tableAfter(readme, '### run1')).toEqual([
      ['run_name', 'run1'],
      ['created_at', '2026-12-01T00:00:00Z'],
      ['model', 'test/model'],
      ['endpoint_host', 'gateway.example:8443'],
      ['seed', '7'],
      ['tool_registry_sha256', 'feedface'],
      ['hermes_datagen', '0.1.0'],
      ['maxTurns', '12'],
      ['temperature', '0.6'],
    ]);
    expect(readme).not.toContain(FINGERPRINT);
    expect(readme).not.toContain(SECRET);
    expect(readme).not.toContain('u:pw');
  });
});

describe('hermes-stats card --run', () => {
  it("takes a run's settings from its run.json when the records come from a later stage's file", async () => {
    const dir = setUp();
    const result = await card(dir, ['--run', 'run1', 'run1/batch_0.jsonl']);
    expect(result.code).toBe(0);
    const readme = readFileSync(join(dir, 'ds/README.md'), 'utf8');
    expect(tableAfter(readme, '### run1')[0]).toEqual(['run_name', 'run1']);
    expect(tableAfter(readme, '## Counts')[1]).toEqual(['trajectories', '20']);
    const notRun = await card(dir, ['--run', 'filter.json', 'run1']);
    expect(notRun.code).toBe(2);
    expect(notRun.stderr).toMatch(/--run filter\.json: give run directories/);
  });
});

describe('hermes-stats card --format trajectories', () => {
  it('writes the records field for field (objects keyed by data as JSON text), without the key fingerprint', async () => {
    const dir = setUp();
    const result = await card(dir, ['--format', 'trajectories', 'run1']);
    expect(result.code).toBe(0);
    expect(readdirSync(join(dir, 'ds/data'))).toHaveLength(3);
    const rows = await query(
      `SELECT id, to_json(conversations) AS conversations, metadata, completed FROM read_parquet('${join(dir, 'ds/data/*.parquet')}', filename = true, file_row_number = true) ORDER BY filename, file_row_number`,
    );
    expect(rows).toHaveLength(records.length);
    for (const [i, row] of rows.entries()) {
      const { key_fingerprint: _f, ...metadata } = records[i]!.metadata;
      expect(row['id']).toBe(records[i]!.id);
      expect(JSON.parse(row['conversations'] as string)).toEqual(records[i]!.conversations);
      expect(JSON.parse(row['metadata'] as string)).toEqual(metadata);
      expect(row['completed']).toBe(records[i]!.completed);
    }
    expect(readFileSync(join(dir, 'ds/README.md'), 'utf8')).toMatch(/\| `conversations` \| `STRUCT\("from" VARCHAR, "value" VARCHAR\)\[\]` \|/);
  });
});

describe('hermes-stats card: bad input', () => {
  it('a torn line stops the run (exit 3, located) and the earlier card stays as it was; --on-error skip leaves it out and says so', async () => {
    const dir = setUp();
    expect((await card(dir, ['run1'])).code).toBe(0);
    const before = readFileSync(join(dir, 'ds/README.md'), 'utf8');
    writeFiles(dir, { 'torn.jsonl': `${jsonl(records.slice(0, 2))}{"prompt_index": 3, "conv` });
    const failed = await card(dir, ['torn.jsonl']);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/torn\.jsonl:3/);
    expect(readFileSync(join(dir, 'ds/README.md'), 'utf8')).toBe(before);
    expect(readdirSync(join(dir, 'ds/data'))).toHaveLength(3);
    expect(readdirSync(join(dir, 'ds')).sort()).toEqual(['README.md', 'data']);

    const cutOff = trajectory({ id: 'cut', conversations: [rawGpt('<tool_call>\n{"name": "terminal", "argu')] });
    writeFiles(dir, { 'mixed.jsonl': jsonl([records[0], cutOff, records[1]]) });
    const skipped = await card(dir, ['--on-error', 'skip', 'mixed.jsonl']);
    expect(skipped.code).toBe(0);
    expect(existsSync(join(dir, 'ds/data/train-00000-of-00001.parquet'))).toBe(true);
    expect(readdirSync(join(dir, 'ds/data'))).toHaveLength(1);
    const readme = readFileSync(join(dir, 'ds/README.md'), 'utf8');
    expect(readme).toMatch(/\| records left out \(not convertible\) \| 1 \|/);
    expect(readme).toMatch(/\| trajectories \| 2 \|/);
  });

  it('refuses a bad --rows-per-file and a missing --license before reading (exit 2)', async () => {
    const dir = setUp();
    const bad = await runInProcess(spec, ['card', '--out', 'ds', '--license', 'cc-by-4.0', '--rows-per-file', '0', 'run1'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--rows-per-file must be a whole number of at least 1/);
    const noLicense = await runInProcess(spec, ['card', '--out', 'ds', 'run1'], { cwd: dir });
    expect(noLicense.code).toBe(2);
    expect(noLicense.stderr).toMatch(/license/);
    expect(existsSync(join(dir, 'ds'))).toBe(false);
  });
});
