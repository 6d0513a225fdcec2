// Group commit, driven by the test: the group's wait is a long timer that the test fires (fake
// timers for setTimeout only, so the file system's own callbacks run as usual), and the writes and
// fsyncs are counted on the fs module, so nothing depends on how fast this machine is.
import fs, { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchAppender } from '@hermes-datagen/generate/internal/run/batchAppender.js';
import { readBatchFile } from '@hermes-datagen/generate/internal/run/batchFiles.js';
import { tempDir, writeFiles } from '../../util/cli.js';

const GROUP_MS = 60_000;
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether `promise` has settled, without waiting for it. */
function state(promise: Promise<unknown>): () => string {
  let now = 'pending';
  promise.then(
    () => (now = 'fulfilled'),
    () => (now = 'rejected'),
  );
  return () => now;
}

describe('batch appender', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('writes the lines of one group in one write and one fsync, and resolves no append before it', async () => {
    const writes = vi.spyOn(fs, 'writeSync');
    const syncs = vi.spyOn(fs, 'fsync');
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 0, { groupMs: GROUP_MS, maxGroupBytes: 1 << 20 });
    const appends = ['{"id":"a"}', '{"id":"b"}\n{"id":"c"}', '{"id":"d"}'].map((text) => file.append(text));
    const states = appends.map(state);
    await settle();
    expect(states.map((s) => s())).toEqual(['pending', 'pending', 'pending']);
    expect(readFileSync(join(dir, 'batch_0.jsonl'), 'utf8')).toBe('');
    vi.advanceTimersByTime(GROUP_MS);
    await Promise.all(appends);
    expect(readFileSync(join(dir, 'batch_0.jsonl'), 'utf8')).toBe('{"id":"a"}\n{"id":"b"}\n{"id":"c"}\n{"id":"d"}\n');
    expect(writes).toHaveBeenCalledTimes(1);
    expect(syncs).toHaveBeenCalledTimes(1);
    await file.close();
  });

  it('starts a new group for a line that arrives while the last one is being written, keeping the order', async () => {
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 1, { groupMs: GROUP_MS, maxGroupBytes: 1 << 20 });
    const first = file.append('{"id":"a"}');
    vi.advanceTimersByTime(GROUP_MS);
    const second = state(file.append('{"id":"b"}'));
    await first;
    await settle();
    expect(second()).toBe('pending');
    expect(readFileSync(join(dir, 'batch_1.jsonl'), 'utf8')).toBe('{"id":"a"}\n');
    vi.advanceTimersByTime(GROUP_MS);
    await vi.waitFor(() => expect(second()).toBe('fulfilled'));
    expect(readFileSync(join(dir, 'batch_1.jsonl'), 'utf8')).toBe('{"id":"a"}\n{"id":"b"}\n');
    await file.close();
  });

  it('writes a group that reached its size at once, without waiting out the time', async () => {
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 2, { groupMs: GROUP_MS, maxGroupBytes: 25 });
    const small = state(file.append('{"id":"a"}'));
    await settle();
    expect(small()).toBe('pending');
    await file.append(`{"id":"b","pad":"${'x'.repeat(20)}"}`);
    expect(small()).toBe('fulfilled');
    expect(readBatchFileIds(dir, 'batch_2.jsonl')).toEqual(['a', 'b']);
    await file.close();
  });

  it('writes what waits when closed', async () => {
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 3, { groupMs: GROUP_MS, maxGroupBytes: 1 << 20 });
    const append = file.append('{"id":"a"}');
    await file.close();
    await append;
    expect(readFileSync(join(dir, 'batch_3.jsonl'), 'utf8')).toBe('{"id":"a"}\n');
  });

  it('fails every append of a group whose write failed, and every later one, naming the file; a file left without a line goes at close', async () => {
    vi.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 4, { groupMs: GROUP_MS, maxGroupBytes: 1 << 20 });
    const appends = [file.append('{"id":"a"}'), file.append('{"id":"b"}')];
    vi.advanceTimersByTime(GROUP_MS);
    const full = `cannot write ${join(dir, 'batch_4.jsonl')}: no space left on the device (ENOSPC)`;
    for (const append of appends) await expect(append).rejects.toThrow(full);
    await expect(file.append('{"id":"c"}')).rejects.toThrow(full);
    await expect(file.append('{"id":"c"}')).rejects.toMatchObject({ exitCode: 74 });
    await file.close();
    expect(existsSync(join(dir, 'batch_4.jsonl'))).toBe(false);
  });

  it('cuts a write the disk stopped short back to the last whole group: the file holds whole lines only', async () => {
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 7, { groupMs: GROUP_MS, maxGroupBytes: 1 << 20 });
    const first = file.append('{"id":"a"}');
    vi.advanceTimersByTime(GROUP_MS);
    await first;
    // The disk takes 5 bytes of the next group, then is full.
    const write = fs.writeSync;
    vi.spyOn(fs, 'writeSync')
      .mockImplementationOnce((fd: number, data: unknown) => write(fd, data as Buffer, 0, 5))
      .mockImplementationOnce(() => {
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      });
    const second = file.append('{"id":"b"}\n{"id":"c"}');
    vi.advanceTimersByTime(GROUP_MS);
    await expect(second).rejects.toThrow(/batch_7\.jsonl: no space left on the device \(ENOSPC\)/);
    await file.close();
    expect(readFileSync(join(dir, 'batch_7.jsonl'), 'utf8')).toBe('{"id":"a"}\n');
  });

  it('fails the group whose fsync failed and every later one, though a later fsync reports success', async () => {
    const fsync = vi.spyOn(fs, 'fsync').mockImplementationOnce((_fd, callback) => callback(Object.assign(new Error('i/o error'), { code: 'EIO' })));
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 6, { groupMs: GROUP_MS, maxGroupBytes: 1 << 20 });
    const first = file.append('{"id":"a"}');
    vi.advanceTimersByTime(GROUP_MS);
    const second = file.append('{"id":"b"}');
    vi.advanceTimersByTime(GROUP_MS);
    const failed = `cannot write ${join(dir, 'batch_6.jsonl')}: input/output error (EIO)`;
    await expect(first).rejects.toThrow(failed);
    await expect(second).rejects.toThrow(failed);
    await expect(file.append('{"id":"c"}')).rejects.toThrow(failed);
    expect(fsync).toHaveBeenCalledTimes(1);
    await file.close();
  });

  it('are created new: an existing number is never opened for writing', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'batch_0.jsonl': 'old\n' });
    await expect(BatchAppender.create(dir, 0)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(join(dir, 'batch_0.jsonl'), 'utf8')).toBe('old\n');
  });

  it('create and close their file off the event loop, which may wait on a network file system', async () => {
    const opens = { sync: vi.spyOn(fs, 'openSync'), pool: vi.spyOn(fs, 'open') };
    const closes = { sync: vi.spyOn(fs, 'closeSync'), pool: vi.spyOn(fs, 'close') };
    const file = await BatchAppender.create(tempDir(), 3);
    const appended = file.append('{"id":"a"}');
    await file.close();
    await appended;
    const ofThisFile = (calls: unknown[][]): number => calls.filter(([path]) => path === file.file.path).length;
    expect([ofThisFile(opens.sync.mock.calls), ofThisFile(opens.pool.mock.calls)]).toEqual([0, 1]);
    expect([closes.sync.mock.calls.length, closes.pool.mock.calls.length]).toEqual([0, 1]);
    expect(readFileSync(file.file.path, 'utf8')).toBe('{"id":"a"}\n');
  });

  it('take many concurrent appends as whole lines, each on disk when its append resolves', async () => {
    vi.useRealTimers();
    const dir = tempDir();
    const file = await BatchAppender.create(dir, 5, { groupMs: 1, maxGroupBytes: 64 * 1024 });
    const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ id: `r${i}`, pad: 'x'.repeat(i * 37) }));
    await Promise.all(
      lines.map(async (line) => {
        await file.append(line);
        // Resolved means written: the line is in the file now.
        expect(readFileSync(join(dir, 'batch_5.jsonl'), 'utf8')).toContain(line);
      }),
    );
    await file.close();
    const read = await readBatchFile({ num: 5, name: 'batch_5.jsonl', path: join(dir, 'batch_5.jsonl') });
    expect(read.map((line) => line.text).sort()).toEqual([...lines].sort());
  });
});

function readBatchFileIds(dir: string, name: string): unknown[] {
  return readFileSync(join(dir, name), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: unknown }).id);
}
