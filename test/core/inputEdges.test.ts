// Edges of the shared input conventions that sit between the cases records.test.ts covers: a byte
// order mark that is not at the start of an input, a line of exactly --max-line-bytes on every path of
// the reader, and the --stats-out counters of a run that read nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { inputSources, readLines, type Line } from '@hermes-datagen/core/internal/lineReader.js';
import { jsonl, parseJsonl, runInProcess, tempDir, writeFiles } from '../util/cli.js';
// @ts-expect-error -- a plain .mjs test aid without type declarations
import { spec } from '../util/passthrough-cli.mjs';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

async function linesOf(chunks: readonly Buffer[], maxLineBytes: number): Promise<string[]> {
  const [source] = inputSources([], Readable.from(chunks), process.cwd());
  const out: Line[] = [];
  for await (const batch of readLines(source!, { maxLineBytes })) out.push(...batch);
  return out.map((line) => (line.kind === 'text' ? `text ${line.text.length}` : `bad ${line.place.line}`));
}

describe('a byte order mark after the start of an input', () => {
  it('at the start of a later line is not removed: the line is a bad line at its place', async () => {
    const dir = tempDir();
    const input = Buffer.concat([Buffer.from('{"n":1}\n'), BOM, Buffer.from('{"n":2}\n{"n":3}\n')]);
    const failed = await runInProcess(spec, [], { input });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/\(at <stdin>:2\): invalid JSON/);
    expect(parseJsonl(failed.stdout)).toEqual([{ n: 1 }]);

    const skipped = await runInProcess(spec, ['--on-error', 'skip', '--rejects', 'r.jsonl'], { input, cwd: dir });
    expect(skipped.code).toBe(0);
    expect(parseJsonl(skipped.stdout)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(skipped.stderr).not.toMatch(/byte order mark removed/);
    const [reject] = parseJsonl(readFileSync(join(dir, 'r.jsonl'), 'utf8')) as { line: number; raw: string }[];
    expect(reject).toMatchObject({ line: 2, raw: '\uFEFF{"n":2}' });
  });

  it('at the start of a second input operand is the start of an input: removed, with a warning naming it', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'a.jsonl': jsonl([{ n: 1 }]), 'b.jsonl': Buffer.concat([BOM, Buffer.from(jsonl([{ n: 2 }]))]) });
    const res = await runInProcess(spec, ['a.jsonl', 'b.jsonl'], { cwd: dir });
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(res.stderr).toMatch(/warning \(at b\.jsonl:1\): UTF-8 byte order mark removed/);
  });
});

describe('a line of exactly --max-line-bytes', () => {
  const limit = 64;
  const line = (bytes: number): Buffer => Buffer.from(`{"s":"${'x'.repeat(bytes - 8)}"}`);

  it('is read, and one byte more is rejected, through the command', async () => {
    const input = Buffer.concat([line(limit), Buffer.from('\n'), line(limit + 1), Buffer.from('\n')]);
    const res = await runInProcess(spec, ['--max-line-bytes', String(limit), '--on-error', 'skip'], { input });
    expect(res.code).toBe(0);
    expect(parseJsonl(res.stdout)).toEqual([JSON.parse(line(limit).toString())]);
    expect(res.stderr).toMatch(/\(at <stdin>:2\): line is longer than the limit of 64 bytes/);
  });

  it('counts the same on every path of the reader: within a chunk, across chunks, and as a last line without newline', async () => {
    const exact = line(limit);
    const over = line(limit + 1);
    const nl = Buffer.from('\n');
    // Within one chunk.
    expect(await linesOf([Buffer.concat([exact, nl, over, nl])], limit)).toEqual(['text 64', 'bad 2']);
    // Split across chunks, at every place inside the line.
    for (let cut = 1; cut < limit; cut += 7) {
      expect(await linesOf([exact.subarray(0, cut), Buffer.concat([exact.subarray(cut), nl])], limit)).toEqual(['text 64']);
      expect(await linesOf([over.subarray(0, cut), Buffer.concat([over.subarray(cut), nl])], limit)).toEqual(['bad 1']);
    }
    // The newline alone in the next chunk.
    expect(await linesOf([exact, nl], limit)).toEqual(['text 64']);
    expect(await linesOf([over, nl], limit)).toEqual(['bad 1']);
    // A last line with no newline.
    expect(await linesOf([exact], limit)).toEqual(['text 64']);
    expect(await linesOf([over], limit)).toEqual(['bad 1']);
  });
});

describe('--stats-out of a run that read no record', () => {
  it.each([
    ['empty input', ''],
    ['only blank lines', '\n  \n'],
  ])('has the same counter keys as any other run (%s)', async (_name, input) => {
    const dir = tempDir();
    const res = await runInProcess(spec, ['--stats-out', 'stats.json'], { input, cwd: dir });
    expect(res.code).toBe(0);
    const { counters } = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { counters: Record<string, number> };
    expect(Object.keys(counters).sort()).toEqual(['blank_lines', 'records_in', 'rejected_lines']);
    expect(counters['records_in']).toBe(0);
    expect(counters['rejected_lines']).toBe(0);
  });
});
