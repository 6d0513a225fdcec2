// The line reader across its chunk boundaries: files are read 1 MiB at a time into reused buffers,
// so lines, multi-byte characters and CRLF pairs split between two reads must come out whole.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { inputSources, readLines, type Line } from '@hermes-datagen/core/internal/lineReader.js';
import { tempDir } from '../util/cli.js';

/** About 3 MiB of JSONL whose lines mix 1-, 2-, 3- and 4-byte UTF-8 characters, of many lengths. */
function corpus(): string {
  const pieces = ['a', 'é', '€', '😀'];
  const lines: string[] = [];
  for (let i = 0, length = 0; length < 3 * 1024 * 1024; i++) {
    lines.push(JSON.stringify({ i, text: pieces[i % 4]!.repeat((i * 7919) % 3001) }));
    length += lines[i]!.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

async function allLines(source: ReturnType<typeof inputSources>[number]): Promise<Line[]> {
  const out: Line[] = [];
  for await (const batch of readLines(source)) out.push(...batch);
  return out;
}

describe('readLines across chunk boundaries', () => {
  const text = corpus();
  const expected = text.split('\n').slice(0, -1);

  it('a file (read through reused 1 MiB buffers) gives every line whole, numbered', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'in.jsonl'), text);
    const [source] = inputSources(['in.jsonl'], undefined, dir);
    const lines = await allLines(source!);
    expect(lines.every((l) => l.kind === 'text')).toBe(true);
    expect(lines.map((l) => (l.kind === 'text' ? l.text : ''))).toEqual(expected);
    expect(lines.map((l) => l.place.line)).toEqual(expected.map((_, i) => i + 1));
  });

  it('a stream cut at every awkward place (inside characters and CRLF pairs) gives the same lines', async () => {
    const bytes = Buffer.from(text.replace(/\n/g, '\r\n'));
    const cuts: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + ((at * 31) % 65_537);
      cuts.push(bytes.subarray(at, at + size));
      at += size;
    }
    const [source] = inputSources([], Readable.from(cuts), process.cwd());
    const lines = await allLines(source!);
    expect(lines.map((l) => (l.kind === 'text' ? l.text : `bad: ${l.reason}`))).toEqual(expected);
  });

  it('an invalid byte far into a chunk is found on its own line, the lines around it kept', async () => {
    const dir = tempDir();
    // Whole lines only: cut after the last newline (a regex anchored at the end would be quadratic here).
    const wholeLines = (end: number): string => text.slice(0, text.lastIndexOf('\n', end) + 1);
    const bad = Buffer.concat([Buffer.from(wholeLines(2_000_000)), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from(wholeLines(500_000))]);
    writeFileSync(join(dir, 'bad.jsonl'), bad);
    const [source] = inputSources(['bad.jsonl'], undefined, dir);
    const lines = await allLines(source!);
    const badLines = lines.filter((l) => l.kind === 'bad');
    expect(badLines).toHaveLength(1);
    expect(badLines[0]).toMatchObject({ reason: 'invalid UTF-8' });
    expect(lines.filter((l) => l.kind === 'text')).toHaveLength(lines.length - 1);
  });
});

describe('readLines --max-line-bytes', () => {
  async function linesOf(bytes: string, maxLineBytes: number): Promise<Line[]> {
    const [source] = inputSources(['-'], Readable.from([Buffer.from(bytes)]), process.cwd());
    const out: Line[] = [];
    for await (const batch of readLines(source!, { maxLineBytes })) out.push(...batch);
    return out;
  }

  it('limits the content of a line, so a CRLF line of exactly the limit is kept and one byte more is rejected', async () => {
    const exact = `"${'x'.repeat(8)}"`; // 10 bytes
    for (const newline of ['\n', '\r\n']) {
      const kept = await linesOf(`${exact}${newline}${exact}`, 10);
      expect(kept.map((l) => l.kind)).toEqual(['text', 'text']);
      const over = await linesOf(`${exact}x${newline}${exact}x`, 10);
      expect(over.map((l) => [l.kind, l.place.line])).toEqual([
        ['bad', 1],
        ['bad', 2],
      ]);
    }
  });
});

describe('readLines on a named pipe', () => {
  it('a stop asked for before the pipe is opened ends the input at once, though no writer ever comes', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'in.jsonl')]);
    const [source] = inputSources(['in.jsonl'], undefined, dir);
    const controller = new AbortController();
    // Aborted while the path is being looked up, before the pipe has a listener for the stop.
    const reading = (async (): Promise<Line[]> => {
      const out: Line[] = [];
      for await (const batch of readLines(source!, { signal: controller.signal })) out.push(...batch);
      return out;
    })();
    controller.abort();
    const outcome = await Promise.race([reading, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 5_000))]);
    expect(outcome).toEqual([]);
  });
});
