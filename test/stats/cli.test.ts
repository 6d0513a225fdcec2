// hermes-stats end to end: in-process through runCli for the behaviour, and the built bin for what only a
// real process shows (gzip from a file, `| head -1`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { validator, type Tombstone, type Trajectory } from '@hermes-datagen/core';
import { spec } from '@hermes-datagen/stats';
import { binPath, jsonl, parseJsonl, REPO_ROOT, runInProcess, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, system, tool, trajectory } from '../util/trajectories.js';

const BIN = binPath('stats', 'hermes-stats');
const REGISTRY = JSON.stringify({ tools: { read_file: { toolset: 'file' }, terminal: { toolset: 'terminal' } } });
const zero = { count: 0, success: 0, failure: 0 };

/** A record already normalised over REGISTRY, so the stage must leave its line alone. */
const normalisedRecord = trajectory({
  id: 'a',
  toolsets_used: ['terminal'],
  conversations: [
    system(),
    human(),
    gpt({ think: 'Run it.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
    tool({ name: 'terminal', content: 'a.txt' }),
    gpt({ think: 'Done.', text: 'a.txt' }),
  ],
  tool_stats: { read_file: zero, terminal: { count: 1, success: 1, failure: 0 } },
  tool_error_counts: { read_file: 0, terminal: 0 },
});
/** The same record as an older tool wrote it: no tool_stats at all. */
const { tool_stats: _s, tool_error_counts: _e, ...bareRecord } = { ...normalisedRecord, id: 'b' };
const tombstoneRow: Tombstone = { prompt_index: 3, discarded: 'no_reasoning', prompt: 'Why?' };

function setup(files: Record<string, string | Buffer> = {}): string {
  const dir = tempDir();
  writeFiles(dir, { 'tools.json': REGISTRY, ...files });
  return dir;
}

describe('hermes-stats (stream stage)', () => {
  it('passes normalised records and tombstones through byte for byte and normalises the rest', async () => {
    // Spacing no re-serialisation would keep, to show the line is passed as it came.
    const spaced = JSON.stringify(normalisedRecord, null, 1).replace(/\n/g, '');
    const input = `${spaced}\n${JSON.stringify(bareRecord)}\n${JSON.stringify(tombstoneRow)}\n`;
    const dir = setup();
    const res = await runInProcess(spec, ['--tools-registry', 'tools.json', '--stats-out', 'stats.json'], { input, cwd: dir });
    expect(res.code).toBe(0);
    const lines = res.stdout.split('\n');
    expect(lines[0]).toBe(spaced);
    expect(JSON.parse(lines[1]!)).toEqual({ ...bareRecord, tool_stats: normalisedRecord.tool_stats, tool_error_counts: normalisedRecord.tool_error_counts });
    expect(lines[2]).toBe(JSON.stringify(tombstoneRow));
    const counters = (JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { counters: Record<string, number> }).counters;
    expect(counters).toMatchObject({ records_in: 3, normalised: 1, tombstones: 1 });
  });

  it('normalises over the default registry when none is given', async () => {
    const res = await runInProcess(spec, [], { input: jsonl([bareRecord]) });
    expect(res.code).toBe(0);
    const [out] = parseJsonl(res.stdout) as Trajectory[];
    expect(Object.keys(out!.tool_stats)).toContain('web_search');
    expect(out!.tool_stats['terminal']).toEqual({ count: 1, success: 1, failure: 0 });
    expect(Object.keys(out!.tool_stats)).toEqual(Object.keys(out!.tool_error_counts));
  });

  it('--recompute recounts from the conversations', async () => {
    const stale = {
      ...normalisedRecord,
      tool_stats: { read_file: { count: 5, success: 0, failure: 5 }, terminal: zero },
      tool_error_counts: { read_file: 5, terminal: 0 },
    };
    const dir = setup();
    const kept = await runInProcess(spec, ['--tools-registry', 'tools.json'], { input: jsonl([stale]), cwd: dir });
    expect(kept.stdout).toBe(jsonl([stale]));
    const res = await runInProcess(spec, ['--tools-registry', 'tools.json', '--recompute'], { input: jsonl([stale]), cwd: dir });
    expect(parseJsonl(res.stdout)).toEqual([normalisedRecord]);
  });

  it('writes a --summary that validates against the statistics schema and counts tombstones as discarded', async () => {
    const dir = setup();
    const res = await runInProcess(spec, ['--tools-registry', 'tools.json', '--summary', 'summary.json'], {
      input: jsonl([normalisedRecord, bareRecord, tombstoneRow]),
      cwd: dir,
    });
    expect(res.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(validator('statistics')(summary)).toBeNull();
    expect(summary).toMatchObject({
      trajectories: 2,
      tool_statistics: { terminal: { count: 2, success: 2, failure: 0, success_rate: 100, failure_rate: 0 } },
      reasoning_statistics: { total_assistant_turns: 4, turns_with_reasoning: 4, turns_without_reasoning: 0 },
      discarded_no_reasoning: 1,
      turns: { min: 5, max: 5, histogram: { '5': 2 } },
      by_toolset: { terminal: { trajectories: 2, tool_calls: 2 } },
    });
  });

  it('under --on-error fail, a bad line or a record that is no trajectory stops the run with exit 3 naming its place', async () => {
    const notTrajectory = JSON.stringify({ prompt_index: 1, hello: 'world' });
    for (const bad of ['{"prompt_index": 1,', notTrajectory]) {
      const res = await runInProcess(spec, [], { input: `${JSON.stringify(normalisedRecord)}\n${bad}\n` });
      expect(res.code).toBe(3);
      expect(res.stderr).toContain('(at <stdin>:2)');
    }
  });

  it('under --on-error skip, bad lines and non-trajectories go to --rejects and the rest goes on', async () => {
    const dir = setup();
    const notTrajectory = JSON.stringify({ ...normalisedRecord, conversations: 'none' });
    const input = `not json\n${notTrajectory}\n${JSON.stringify(normalisedRecord)}\n`;
    const res = await runInProcess(spec, ['--tools-registry', 'tools.json', '--on-error', 'skip', '--rejects', 'rejects.jsonl', '--summary', 's.json'], {
      input,
      cwd: dir,
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${JSON.stringify(normalisedRecord)}\n`);
    const rejects = parseJsonl(readFileSync(join(dir, 'rejects.jsonl'), 'utf8')) as { line: number; reason: string; raw: string }[];
    expect(rejects.map((r) => r.line)).toEqual([1, 2]);
    expect(rejects[1]).toMatchObject({ raw: notTrajectory, reason: expect.stringContaining('/conversations') as unknown });
    expect(JSON.parse(readFileSync(join(dir, 's.json'), 'utf8'))).toMatchObject({ trajectories: 1 });
  });

  it('says what to do about a broken --tools-registry (exit 2)', async () => {
    const dir = setup({ 'bad.json': '{"tools": []}' });
    const res = await runInProcess(spec, ['--tools-registry', 'bad.json'], { input: jsonl([normalisedRecord]), cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('bad.json');
  });

  it('reads gzip files (the real bin)', async () => {
    const dir = setup({ 'in.jsonl.gz': gzipSync(jsonl([normalisedRecord, bareRecord])) });
    const res = await runProcess(BIN, ['--tools-registry', join(dir, 'tools.json'), join(dir, 'in.jsonl.gz')]);
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual([
      normalisedRecord,
      { ...bareRecord, tool_stats: normalisedRecord.tool_stats, tool_error_counts: normalisedRecord.tool_error_counts },
    ]);
  });

  it('exits 0 quietly when stdout closes early (| head -1)', async () => {
    const dir = setup({ 'in.jsonl': jsonl(Array.from({ length: 20_000 }, (_, i) => ({ ...bareRecord, prompt_index: i }))) });
    const result = await new Promise<{ out: string; err: string }>((resolve) => {
      const child = spawn('bash', ['-c', `node ${BIN} ${join(dir, 'in.jsonl')} | head -1; echo "status=\${PIPESTATUS[0]}" >&2`], { cwd: REPO_ROOT });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('close', () => resolve({ out, err }));
    });
    expect(parseJsonl(result.out)).toHaveLength(1);
    expect(result.err).toBe('status=0\n');
  });
});

describe('hermes-stats merge', () => {
  it('merges shard summaries into exactly the summary of one pass over all shards', async () => {
    const records = [
      normalisedRecord,
      bareRecord,
      { ...normalisedRecord, id: 'c', completed: false, api_calls: 7, metadata: { ...normalisedRecord.metadata, model: 'other' } },
    ];
    const dir = setup({ 'a.jsonl': jsonl([records[0], tombstoneRow]), 'b.jsonl': jsonl(records.slice(1)), 'all.jsonl': jsonl([...records, tombstoneRow]) });
    for (const [input, summary] of [
      ['a.jsonl', 'a.json'],
      ['b.jsonl', 'b.json'],
      ['all.jsonl', 'all.json'],
    ]) {
      expect((await runInProcess(spec, ['--tools-registry', 'tools.json', '--summary', summary!, input!], { cwd: dir })).code).toBe(0);
    }
    const toStdout = await runInProcess(spec, ['merge', 'a.json', 'b.json'], { cwd: dir });
    expect(toStdout.code).toBe(0);
    expect(toStdout.stdout).toBe(readFileSync(join(dir, 'all.json'), 'utf8'));
    expect((await runInProcess(spec, ['merge', 'b.json', 'a.json', '-o', 'merged.json'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'merged.json'), 'utf8')).toBe(readFileSync(join(dir, 'all.json'), 'utf8'));
  });

  it("refuses upstream's statistics.json and missing files with exit 3 and says why", async () => {
    const upstream = { tool_statistics: {}, reasoning_statistics: { total_assistant_turns: 0, turns_with_reasoning: 0, turns_without_reasoning: 0 } };
    const dir = setup({ 'statistics.json': JSON.stringify(upstream), 'broken.json': '{' });
    const refused = await runInProcess(spec, ['merge', 'statistics.json'], { cwd: dir });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('statistics.json is not a hermes-stats summary');
    for (const file of ['missing.json', 'broken.json']) {
      const res = await runInProcess(spec, ['merge', file], { cwd: dir });
      expect(res.code).toBe(3);
      expect(res.stderr).toContain(file);
    }
  });

  it('says that a records file is not a summary file, instead of where its JSON breaks', async () => {
    const dir = setup({ 'run.jsonl': jsonl([trajectory({ id: 'a' }), trajectory({ id: 'b' })]) });
    const res = await runInProcess(spec, ['merge', 'run.jsonl'], { cwd: dir });
    expect(res.code).toBe(3);
    expect(res.stderr).toBe(
      "hermes-stats: error: summary run.jsonl: not a summary file: it holds JSON lines (records); merge takes the files `hermes-stats --summary FILE` writes, or a run directory's statistics.json\n",
    );
  });
});
