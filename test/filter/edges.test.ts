// hermes-filter at its edges, through the built bin: --stats-out when nothing is kept or dropped, and
// --invert together with --rejects.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, parseJsonl, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, system, trajectory } from '../util/trajectories.js';

const BIN = binPath('filter', 'hermes-filter');

const kept = trajectory({ id: 'kept', conversations: [system(), human(), gpt({ think: 'Think.', text: 'Done.' })] });
const noReasoning = trajectory({ id: 'no-reasoning', conversations: [system(), human(), gpt({ text: 'Done.' })] });

describe('--stats-out when nothing is kept or dropped', () => {
  it('has every counter key, at 0, as a run that kept and dropped records', async () => {
    const dir = tempDir();
    const empty = await runProcess(BIN, ['--stats-out', join(dir, 'empty.json')], { input: '' });
    expect(empty.code).toBe(0);
    expect(empty.stderr).toBe('hermes-filter: kept 0 of 0 records\n');
    const some = await runProcess(BIN, ['--stats-out', join(dir, 'some.json')], { input: `${JSON.stringify(kept)}\n` });
    expect(some.code).toBe(0);
    const counters = (file: string): Record<string, number> =>
      (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { counters: Record<string, number> }).counters;
    expect(counters('empty.json')).toEqual({ records_in: 0, rejected_lines: 0, blank_lines: 0, kept: 0, dropped: 0 });
    expect(Object.keys(counters('empty.json')).sort()).toEqual(Object.keys(counters('some.json')).sort());
  });
});

describe('--invert with --rejects', () => {
  it('writes the dropped records to stdout and to --rejects, with the bad lines in --rejects only; kept records go nowhere', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': `${JSON.stringify(kept)}\n{broken\n${JSON.stringify(noReasoning)}\n` });
    const res = await runProcess(BIN, ['--invert', '--on-error', 'skip', '--rejects', join(dir, 'rejects.jsonl'), join(dir, 'in.jsonl')]);
    expect(res.code).toBe(0);
    const dropped = { ...noReasoning, reason: 'zero_reasoning', detail: expect.any(String) as unknown };
    expect(parseJsonl(res.stdout)).toEqual([dropped]);
    const rejects = parseJsonl(readFileSync(join(dir, 'rejects.jsonl'), 'utf8'));
    expect(rejects).toEqual([{ line: 2, source: join(dir, 'in.jsonl'), reason: expect.stringMatching(/invalid JSON/) as unknown, raw: '{broken' }, dropped]);
    // The same dropped line, byte for byte, in both places.
    expect(readFileSync(join(dir, 'rejects.jsonl'), 'utf8').split('\n')[1]).toBe(res.stdout.trimEnd());
    expect(res.stdout).not.toContain('"kept"');
  });
});
