// JsonlWriter on its own: order across buffer flushes, lines bigger than its buffer, pass-through bytes,
// gzip files, and what discard leaves behind.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createRng, JsonlWriter } from '@hermes-datagen/core';
import { BrokenPipe } from '@hermes-datagen/core/internal/errors.js';
import { tempDir } from '../util/cli.js';

function collected(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('JsonlWriter', () => {
  it('keeps records in order across many buffer flushes, with mixed string, object and byte lines', async () => {
    const { stream, text } = collected();
    const writer = await JsonlWriter.open(undefined, stream, process.cwd());
    const expected: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const line = JSON.stringify({ i, pad: 'é'.repeat(i % 97) });
      expected.push(line);
      if (i % 3 === 0) await writer.write(JSON.parse(line));
      else if (i % 3 === 1) await writer.writeLine(line);
      else await writer.writeLine(Buffer.from(line));
    }
    await writer.close();
    expect(text()).toBe(`${expected.join('\n')}\n`);
    expect(writer.written).toBe(20_000);
  });

  it('writes a line larger than its buffer whole, after the lines before it', async () => {
    const { stream, text } = collected();
    const writer = await JsonlWriter.open(undefined, stream, process.cwd());
    const big = JSON.stringify({ big: 'x'.repeat(3 << 20) });
    await writer.writeLine('{"n":1}');
    await writer.writeLine(big);
    await writer.writeLine('{"n":2}');
    await writer.close();
    expect(text()).toBe(`{"n":1}\n${big}\n{"n":2}\n`);
  });

  it('places every line whole and in call order when thousands of callers write at once', async () => {
    // A slow reader keeps flushes pending while more callers arrive, as many prompts finishing together do.
    const stream = new PassThrough({ highWaterMark: 1 << 16 });
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => {
      chunks.push(c);
      stream.pause();
      setImmediate(() => stream.resume());
    });
    const writer = await JsonlWriter.open(undefined, stream, process.cwd());
    const random = createRng(7);
    const buffer = 1 << 20;
    const sizeOf = (i: number): number => {
      const r = random();
      if (i % 500 === 499) return buffer + Math.floor(random() * 4096) - 2048; // around the buffer size
      if (i % 997 === 0) return 2 * buffer + 17; // larger than the buffer
      if (r < 0.1) return Math.floor(buffer / 3) + Math.floor(random() * 2048) - 1024; // at the worst-case UTF-8 estimate
      if (r < 0.3) return 20_000 + Math.floor(random() * 60_000);
      return 10 + Math.floor(random() * 2_000);
    };
    const expected: string[] = [];
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 3_000; i++) {
      const line = `{"i":${i},"p":"${String.fromCharCode(97 + (i % 26)).repeat(Math.max(0, sizeOf(i) - 20))}"}`;
      expected.push(line);
      writes.push(i % 2 === 0 ? writer.writeLine(line) : writer.writeLine(Buffer.from(line)));
      if (i % 250 === 0) writes.push(writer.flush());
    }
    await Promise.all(writes);
    await writer.close();
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.length).toBe(expected.length);
    for (let i = 0; i < lines.length; i++)
      if (lines[i] !== expected[i]) expect.fail(`line ${i + 1} differs (length ${lines[i]?.length} vs ${expected[i]?.length})`);
    expect(writer.written).toBe(3_000);
  });

  it('moves a file into place only at close, and gzips a .gz target', async () => {
    const dir = tempDir();
    const writer = await JsonlWriter.open('out.jsonl.gz', new PassThrough(), dir);
    await writer.write({ a: 1 });
    await writer.flush();
    expect(existsSync(join(dir, 'out.jsonl.gz'))).toBe(false);
    await writer.close();
    expect(gunzipSync(readFileSync(join(dir, 'out.jsonl.gz'))).toString('utf8')).toBe('{"a":1}\n');
    expect(readdirSync(dir)).toEqual(['out.jsonl.gz']);
  });

  it('discard leaves the target as it was and removes its temp file', async () => {
    const dir = tempDir();
    const writer = await JsonlWriter.open('out.jsonl', new PassThrough(), dir);
    await writer.write({ a: 1 });
    await writer.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('turns a reader that went away (EPIPE) into BrokenPipe', async () => {
    const stream = new PassThrough();
    stream.write = ((_chunk: unknown, callback?: (err?: Error | null) => void) => {
      const err = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
      queueMicrotask(() => callback?.(err));
      return false;
    }) as typeof stream.write;
    const writer = await JsonlWriter.open(undefined, stream, process.cwd());
    await writer.writeLine('{"a":1}');
    await expect(writer.close()).rejects.toBeInstanceOf(BrokenPipe);
  });
});
