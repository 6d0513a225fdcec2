import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '@hermes-datagen/core';
import { listBatchFiles, readBatchFile, repairTornTail } from '@hermes-datagen/generate/internal/run/batchFiles.js';
import { tempDir, writeFiles } from '../../util/cli.js';

describe('batch files', () => {
  it('are listed in number order, batch_10 after batch_9 (upstream sorted them as text)', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'batch_10.jsonl': '', 'batch_9.jsonl': '', 'batch_1.jsonl': '', 'trajectories.jsonl': '', 'batch_x.jsonl': '', 'batch_2.jsonl.tmp': '' });
    expect((await listBatchFiles(dir)).map((file) => file.num)).toEqual([1, 9, 10]);
  });

  it('cut a torn last line back to the last newline and say how much went', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'batch_0.jsonl': '{"id":"a"}\n{"id":"b","conv' });
    const [file] = await listBatchFiles(dir);
    expect(await repairTornTail(file!)).toEqual({ cut: { tornBytes: 15, orphans: [] }, bytes: 11 });
    expect(readFileSync(join(dir, 'batch_0.jsonl'), 'utf8')).toBe('{"id":"a"}\n');
    expect(await repairTornTail(file!)).toEqual({ bytes: 11 });
  });

  it('treat a whole JSON line without its newline as torn too: it was never counted as done', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'batch_3.jsonl': '{"id":"a"}' });
    const [file] = await listBatchFiles(dir);
    expect(await repairTornTail(file!)).toEqual({ cut: { tornBytes: 10, orphans: [] }, bytes: 0 });
    expect(await readBatchFile(file!)).toEqual([]);
  });

  it('cut the whole sub-agent records at the end with their torn root: one append wrote them, and the root runs again', async () => {
    const dir = tempDir();
    const sub = (id: string): string => JSON.stringify({ id, metadata: { parent_id: id.split('/')[0], depth: 1 } });
    const kept = `${sub('a/d0.0')}\n{"id":"a","metadata":{}}\n`;
    writeFiles(dir, { 'batch_0.jsonl': `${kept}${sub('b/d0.0')}\n${sub('b/d0.1')}\n{"id":"b","co`, 'batch_1.jsonl': `${kept}${sub('c/d0.0')}\n` });
    const [torn, whole] = await listBatchFiles(dir);
    expect(await repairTornTail(torn!)).toEqual({ cut: { tornBytes: 13, orphans: ['b/d0.0', 'b/d0.1'] }, bytes: kept.length });
    // A kill can also stop the append right after a sub-agent's newline.
    expect(await repairTornTail(whole!)).toEqual({ cut: { tornBytes: 0, orphans: ['c/d0.0'] }, bytes: kept.length });
    for (const name of ['batch_0.jsonl', 'batch_1.jsonl']) expect(readFileSync(join(dir, name), 'utf8')).toBe(kept);
  });

  it('report a damaged line in the middle with its file and line', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'batch_0.jsonl': '{"id":"a"}\nnot json\n' });
    const [file] = await listBatchFiles(dir);
    const error = await readBatchFile(file!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).place).toEqual({ source: join(dir, 'batch_0.jsonl'), line: 2 });
  });

  it('keep blank lines out of what is read', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'batch_0.jsonl'), '{"id":"a"}\n\n{"id":"b"}\n');
    const read = await readBatchFile((await listBatchFiles(dir))[0]!);
    expect(read.map((line) => [line.value['id'], line.place.line])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
  });
});
