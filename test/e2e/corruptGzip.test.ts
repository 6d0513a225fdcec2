// Damaged gzip input, through every built bin that reads JSONL: corrupt deflate data (one byte
// flipped mid-file) and a file cut short are bad input at a place (file, and the last line read
// whole), exit 3, never exit 0 with the rest of the file silently gone; records before the damage
// are treated as for any other bad line; --stats-out is still written, no -o temp file is left, no
// DuckDB temp directory is left, and the process ends (zlib never calls back a write it failed on).
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createRng } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, parseJsonl, REPO_ROOT, runCommand, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { gpt, human, system, trajectory } from '../util/trajectories.js';

const PASSTHROUGH = join(REPO_ROOT, 'test/util/passthrough-cli.mjs');
const FILTER = binPath('filter', 'hermes-filter');
const STATS = binPath('stats', 'hermes-stats');
const GENERATE = binPath('generate', 'hermes-generate');

/** Records whose text deflate must encode with back-references, so a flipped byte breaks the stream. */
function trajectories(n: number): unknown[] {
  const random = createRng(11);
  const word = (): string => Array.from({ length: 6 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
  return Array.from({ length: n }, (_, i) =>
    trajectory({ prompt_index: i, conversations: [system(), human(Array.from({ length: 30 }, word).join(' ')), gpt({ think: 'Think.', text: word() })] }),
  );
}

const damage = {
  /** One byte of the deflate data flipped in the middle of the file. */
  'corrupt deflate data': (gz: Buffer): Buffer => {
    const copy = Buffer.from(gz);
    copy[copy.length >> 1] ^= 0xff;
    return copy;
  },
  /** The file cut off half-way. */
  'a truncated file': (gz: Buffer): Buffer => gz.subarray(0, gz.length >> 1),
};

const GZIP_ERROR = /error \(at in\.jsonl\.gz:(\d+)\): not valid gzip data \([^)]+\); (?:no line|line (\d+) is the last one) read whole/;

function duckdbTempDirs(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('hermes-stats-duckdb-'));
}

describe.each(Object.entries(damage))('gzip input with %s', (_what, spoil) => {
  const records = trajectories(3000);
  const lines = jsonl(records).split('\n');
  const input = spoil(gzipSync(jsonl(records)));

  /** Exit 3 at a located line; what reached stdout is lines of the input, each before that line. */
  function expectLocated(res: { code: number; stderr: string; stdout: string }): number {
    expect(res.code, res.stderr).toBe(3);
    const match = GZIP_ERROR.exec(res.stderr);
    expect(match, res.stderr).not.toBeNull();
    const at = Number(match?.[1]);
    if (match?.[2] !== undefined) expect(Number(match[2])).toBe(at - 1);
    for (const line of res.stdout.split('\n').filter(Boolean)) expect(lines.indexOf(line)).toBeLessThan(at - 1);
    return at;
  }

  it('the core stream conventions (a passthrough stage): stdout keeps the records before the damage, --stats-out and --rejects are written', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl.gz': input });
    const res = await runProcess(PASSTHROUGH, ['--on-error', 'skip', '--rejects', 'rejects.jsonl', '--stats-out', 'stats.json', 'in.jsonl.gz'], { cwd: dir });
    const at = expectLocated(res);
    expect(at).toBeGreaterThan(100);
    expect(parseJsonl(res.stdout).length).toBeGreaterThan(100);
    expect(JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8'))).toMatchObject({ exit_code: 3 });
    readFileSync(join(dir, 'rejects.jsonl'), 'utf8');
  });

  it('hermes-filter with -o: exit 3, --stats-out written, the target untouched and no temp file left', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl.gz': input });
    const res = await runProcess(FILTER, ['-o', 'out.jsonl', '--stats-out', 'stats.json', 'in.jsonl.gz'], { cwd: dir });
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toMatch(/error \(at in\.jsonl\.gz:\d+\)/);
    expect(readdirSync(dir).sort()).toEqual(['in.jsonl.gz', 'stats.json']);
    expect(JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8'))).toMatchObject({ exit_code: 3 });
  });

  it('hermes-filter and the hermes-stats stream stage under --on-error skip: the damage itself still ends the run with exit 3', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl.gz': input });
    expectLocated(await runProcess(FILTER, ['--on-error', 'skip', 'in.jsonl.gz'], { cwd: dir }));
    const stats = await runProcess(STATS, ['--on-error', 'skip', '--stats-out', 'stats.json', '--summary', 'summary.json', 'in.jsonl.gz'], { cwd: dir });
    expectLocated(stats);
    expect(JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8'))).toMatchObject({ exit_code: 3 });
  });

  it.each([
    ['sql', ['sql', 'select count(*) from trajectories']],
    ['report', ['report']],
    ['report --db', ['report', '--db', 'run.duckdb']],
  ])('hermes-stats %s: exit 3, located, no DuckDB temp directory or database left', async (_name, args) => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl.gz': input });
    const before = duckdbTempDirs();
    const res = await runProcess(STATS, [...args, 'in.jsonl.gz'], { cwd: dir });
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toMatch(GZIP_ERROR);
    expect(duckdbTempDirs().filter((name) => !before.includes(name))).toEqual([]);
    expect(readdirSync(dir)).toEqual(['in.jsonl.gz']);
  });

  it('hermes-generate prompts: exit 3, located', async () => {
    const endpoint = await scriptedEndpoint({ script: {}, apiKey: TEST_API_KEY });
    const dir = tempDir();
    const random = createRng(3);
    const prompts = Array.from({ length: 400 }, (_, i) => ({ id: `p${i}`, prompt: `Say ${Math.floor(random() * 1e12).toString(36)} ${i}` }));
    writeFiles(dir, { 'in.jsonl.gz': spoil(gzipSync(jsonl(prompts))) });
    const res = await runProcess(
      GENERATE,
      [
        '--base-url',
        endpoint.url,
        '--model',
        'test-model',
        '--toolsets',
        'terminal',
        '-c',
        '32',
        '--workspace-root',
        'ws',
        '--on-error',
        'skip',
        'in.jsonl.gz',
      ],
      {
        cwd: dir,
        env: { HERMES_API_KEY: TEST_API_KEY },
      },
    );
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toMatch(GZIP_ERROR);
    const at = Number(GZIP_ERROR.exec(res.stderr)?.[1]);
    expect(at).toBeGreaterThan(1);
    // Every prompt read whole before the damage has its trajectory.
    const ids = new Set(parseJsonl(res.stdout).map((record) => (record as { id: string }).id));
    for (let i = 0; i < Math.min(at - 1, 10); i++) expect(ids.has(`p${i}`), `p${i}`).toBe(true);
  });
});

describe('gzip input: nothing decoded is lost, and detection does not depend on how stdin arrives', () => {
  const records = trajectories(1000);
  const lines = jsonl(records).split('\n').filter(Boolean);

  it('a member followed by trailing garbage: hermes-filter keeps all 1,000 records, then exit 3 at line 1,001', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl.gz': Buffer.concat([gzipSync(jsonl(records)), Buffer.from('trailing garbage\n')]) });
    const res = await runProcess(FILTER, ['--on-error', 'skip', 'in.jsonl.gz'], { cwd: dir });
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toContain('error (at in.jsonl.gz:1001): not valid gzip data');
    expect(res.stderr).toContain('line 1000 is the last one read whole');
    expect(res.stdout.split('\n').filter(Boolean)).toEqual(lines);
  });

  it('gzip on stdin whose first read returns one byte (head -c1; sleep; tail) is still gunzipped: 20 of 20 kept', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'f.jsonl.gz': gzipSync(jsonl(records.slice(0, 20))) });
    // The pause makes the pipe deliver the first byte on its own, as the reproduction does.
    const res = await runCommand(
      '/bin/bash',
      ['-c', `(head -c1 f.jsonl.gz; sleep 1; tail -c +2 f.jsonl.gz) | "${process.execPath}" "${FILTER}" --on-error skip`],
      {
        cwd: dir,
      },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.split('\n').filter(Boolean)).toEqual(lines.slice(0, 20));
    expect(res.stderr).toContain('kept 20 of 20 records');
  });
});
