// hermes-filter end to end through the built bin: what reaches stdout, --rejects and --stats-out, the
// shared bad-input policy, gzip input, and behaviour in pipes (`| head -1`, filter | filter).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Tombstone } from '@hermes-datagen/core';
import { binPath, jsonl, parseJsonl, REPO_ROOT, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, system, tool, trajectory } from '../util/trajectories.js';

const BIN = binPath('filter', 'hermes-filter');

const kept = trajectory({
  id: 'kept',
  conversations: [
    system(),
    human('Liste les fichiers ✓'),
    gpt({ think: 'Lister.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
    tool({ name: 'terminal', content: 'a.txt' }),
    gpt({ think: 'Fini.', text: 'a.txt' }),
  ],
  tool_stats: { terminal: { count: 1, success: 1, failure: 0 } },
});
const noReasoning = trajectory({ id: 'no-reasoning', conversations: [system(), human(), gpt({ text: 'Done.' })] });
const unknownTool = trajectory({ id: 'unknown-tool', conversations: [system(), human(), gpt({ think: 'Search.', calls: [{ name: 'web_search_v2' }] })] });
const tombstone: Tombstone = { prompt_index: 9, discarded: 'no_reasoning', prompt: 'Why?' };

/**
 * A kept record as another tool may have written it: keys in reverse order, spaces after separators,
 * raw non-ASCII and escapes (\u00e9, \/) that JSON.stringify would write differently.
 */
const unusualLine =
  '{"tool_error_counts": {}, "tool_stats": {}, "toolsets_used": [], "api_calls": 1, "partial": false, "completed": true, ' +
  '"metadata": {"model": "m\\/1", "timestamp": "2026-01-01T00:00:00", "batch_num": 0}, ' +
  '"conversations": [{"value": "caf\\u00e9 日本語 ✓", "from": "human"}, {"from": "gpt", "value": "<think>\\nPensé.\\n</think>\\nOui 🙂"}], ' +
  '"prompt_index": 7}';

function pipe(command: string): Promise<{ out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: REPO_ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', () => resolve({ out, err }));
  });
}

describe('hermes-filter (the built bin)', () => {
  it('passes kept lines through byte for byte, drops the rest and counts them on stderr', async () => {
    const input = `${JSON.stringify(kept)}\n${JSON.stringify(noReasoning)}\n${unusualLine}\n${JSON.stringify(unknownTool)}\n`;
    const res = await runProcess(BIN, [], { input });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${JSON.stringify(kept)}\n${unusualLine}\n`);
    expect(res.stderr).toBe('hermes-filter: kept 2 of 4 records; dropped 2: hallucinated_tool 1, zero_reasoning 1\n');
  });

  it('writes drops to --rejects as the record plus reason and detail, and bad lines as {line, source, reason, raw}', async () => {
    const dir = tempDir();
    const notTrajectory = JSON.stringify({ prompt_index: 1, conversations: 'nope' });
    writeFiles(dir, { 'in.jsonl': `${JSON.stringify(kept)}\n{broken\n${JSON.stringify(noReasoning)}\n${notTrajectory}\n${JSON.stringify(tombstone)}\n` });
    const res = await runProcess(BIN, [
      '--on-error',
      'skip',
      '--rejects',
      join(dir, 'rejects.jsonl'),
      '--stats-out',
      join(dir, 'stats.json'),
      join(dir, 'in.jsonl'),
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${JSON.stringify(kept)}\n`);
    const rejectsText = readFileSync(join(dir, 'rejects.jsonl'), 'utf8');
    const rejects = parseJsonl(rejectsText) as Record<string, unknown>[];
    // Both kinds, in line order: bad lines as {line, source, reason, raw}, drops as the record plus reason and detail.
    expect(rejects).toEqual([
      { line: 2, source: join(dir, 'in.jsonl'), reason: expect.stringMatching(/invalid JSON/) as unknown, raw: '{broken' },
      { ...noReasoning, reason: 'zero_reasoning', detail: 'none of the 1 gpt turns has a non-empty <think> or <REASONING_SCRATCHPAD> block' },
      { line: 4, source: join(dir, 'in.jsonl'), reason: expect.stringMatching(/trajectory schema/) as unknown, raw: notTrajectory },
      { ...tombstone, reason: 'tombstone', detail: 'a tombstone row (discarded: no_reasoning)' },
    ]);
    // The dropped record's own text comes first, unchanged.
    expect(rejectsText.split('\n').some((line) => line.startsWith(`${JSON.stringify(noReasoning).slice(0, -1)},"reason":`))).toBe(true);
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { exit_code: number; counters: Record<string, number> };
    expect(stats.exit_code).toBe(0);
    expect(stats.counters).toEqual({
      records_in: 3,
      rejected_lines: 2,
      blank_lines: 0,
      kept: 1,
      dropped: 2,
      'dropped.zero_reasoning': 1,
      'dropped.tombstone': 1,
    });
  });

  it('--invert writes the dropped records, with reason and detail, instead of the kept ones', async () => {
    const res = await runProcess(BIN, ['--invert', '-'], { input: jsonl([kept, noReasoning, unknownTool, tombstone]) });
    expect(res.code).toBe(0);
    expect((parseJsonl(res.stdout) as { id?: string; reason: string }[]).map((r) => [r.id, r.reason])).toEqual([
      ['no-reasoning', 'zero_reasoning'],
      ['unknown-tool', 'hallucinated_tool'],
      [undefined, 'tombstone'],
    ]);
  });

  it('turns the default rules off and the others on from the command line', async () => {
    const incomplete = { ...kept, id: 'incomplete', completed: false };
    const input = jsonl([kept, noReasoning, unknownTool, incomplete]);
    const off = await runProcess(BIN, ['--no-zero-reasoning', '--no-hallucinated-tools'], { input });
    expect((parseJsonl(off.stdout) as { id: string }[]).map((r) => r.id)).toEqual(['kept', 'no-reasoning', 'unknown-tool', 'incomplete']);
    const strict = await runProcess(BIN, ['--require-completed', '--valid-tools', 'terminal,web_search_v2'], { input });
    expect((parseJsonl(strict.stdout) as { id: string }[]).map((r) => r.id)).toEqual(['kept', 'unknown-tool']);
  });

  it('stops at a bad line under --on-error fail (exit 3, file:line), keeping what came before', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': `${JSON.stringify(kept)}\n[1, 2]\n${JSON.stringify(kept)}\n` });
    const res = await runProcess(BIN, [join(dir, 'in.jsonl')]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain(`${join(dir, 'in.jsonl')}:2`);
    expect(res.stderr).toMatch(/not a JSON object/);
    expect(res.stdout).toBe(`${JSON.stringify(kept)}\n`);
  });

  it('loses nothing valid under --on-error skip', async () => {
    const res = await runProcess(BIN, ['--on-error', 'skip'], { input: `${JSON.stringify(kept)}\n\u0000garbage\n${unusualLine}\n{"truncated": \n` });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${JSON.stringify(kept)}\n${unusualLine}\n`);
    expect(res.stderr).toMatch(/skipped 2 bad input lines/);
  });

  it('reads gzip input', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl.gz': gzipSync(jsonl([kept, noReasoning, kept])) });
    const res = await runProcess(BIN, [join(dir, 'in.jsonl.gz')]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(jsonl([kept, kept]));
  });

  it('refuses a bad option value with exit 2 and says what to do', async () => {
    const res = await runProcess(BIN, ['--max-tool-failure-rate', '5'], { input: jsonl([kept]) });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--max-tool-failure-rate must be a share between 0 and 1/);
  });

  it('exits 0 quietly when stdout closes early (| head -1)', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': jsonl(Array.from({ length: 5000 }, (_, i) => ({ ...kept, prompt_index: i }))) });
    const { out, err } = await pipe(`node ${BIN} ${join(dir, 'in.jsonl')} | head -1; echo "status=\${PIPESTATUS[0]}" >&2`);
    expect(parseJsonl(out)).toEqual([{ ...kept, prompt_index: 0 }]);
    expect(err).toBe('status=0\n');
  });

  it('composes in a pipe: each stage passes the lines of the one before unchanged', async () => {
    const dir = tempDir();
    const partial = { ...kept, id: 'partial', partial: true };
    writeFiles(dir, { 'in.jsonl': `${JSON.stringify(kept)}\n${unusualLine}\n${JSON.stringify(partial)}\n${JSON.stringify(noReasoning)}\n` });
    const { out, err } = await pipe(
      `cat ${join(dir, 'in.jsonl')} | node ${BIN} --drop-partial | node ${BIN} --min-turns 2 -; echo "status=\${PIPESTATUS[*]}" >&2`,
    );
    expect(out).toBe(`${JSON.stringify(kept)}\n`);
    expect(err).toContain('hermes-filter: kept 2 of 4 records; dropped 2: partial 1, zero_reasoning 1\n');
    expect(err).toContain('hermes-filter: kept 1 of 2 records; dropped 1: min_turns 1\n');
    expect(err).toContain('status=0 0 0');
  });
});
