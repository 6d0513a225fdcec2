// gzip input through the line reader: every byte that decodes before damage is delivered (zlib's
// stream drops the output of the call that fails), the error names the first line not read whole,
// members one after another are one stream, and gzip is recognised however the first bytes arrive.
import { Readable } from 'node:stream';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createRng } from '@hermes-datagen/core';
import { InputError } from '@hermes-datagen/core/internal/errors.js';
import { inputSources, readLines } from '@hermes-datagen/core/internal/lineReader.js';

/** Lines whose text deflate must encode with back-references and literals alike. */
function lines(n: number): string[] {
  const random = createRng(5);
  return Array.from({ length: n }, (_, i) => JSON.stringify({ i, text: Array.from({ length: 12 }, () => Math.floor(random() * 1e9).toString(36)).join(' ') }));
}

/** The lines read from a stream of these chunks, and the error that ended it (if any). */
async function read(chunks: Buffer[]): Promise<{ texts: string[]; error: InputError | undefined }> {
  const [source] = inputSources([], Readable.from(chunks), process.cwd());
  const texts: string[] = [];
  try {
    for await (const batch of readLines(source!)) for (const line of batch) texts.push(line.kind === 'text' ? line.text : `bad: ${line.reason}`);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return { texts, error: err };
  }
  return { texts, error: undefined };
}

describe('gzip input', () => {
  const all = lines(20_000);
  const text = `${all.join('\n')}\n`;

  it('a member followed by trailing garbage: every line of the member, then an error at the line after the last', async () => {
    const { texts, error } = await read([Buffer.concat([gzipSync(text), Buffer.from('trailing garbage')])]);
    expect(texts).toEqual(all);
    expect(error?.place).toEqual({ source: '<stdin>', line: all.length + 1 });
    expect(error?.message).toContain(`line ${all.length} is the last one read whole`);
  });

  /** The whole lines that a gzip prefix decodes to: all that precedes a damage at its end. */
  function wholeLinesOf(prefix: Buffer): string[] {
    const decoded = gunzipSync(prefix, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
    return decoded.split('\n').slice(0, -1);
  }

  it('a corrupt byte: every line decoded before it is delivered, the error names the first line not read whole', async () => {
    const gz = gzipSync(text);
    const at = gz.length >> 1;
    const spoilt = Buffer.from(gz);
    spoilt[at] ^= 0xff;
    const before = wholeLinesOf(gz.subarray(0, at));
    expect(before.length).toBeGreaterThan(all.length / 4);
    const { texts, error } = await read([spoilt]);
    expect(error?.message).toMatch(/not valid gzip data/);
    // Deflate may decode a damaged byte into wrong text for a while before it sees an invalid code:
    // all that came before the damage is there, and the error is at the line after the last read.
    expect(texts.slice(0, before.length)).toEqual(before);
    expect(error?.place?.line).toBe(texts.length + 1);
  });

  it('a file cut short: every whole line it decodes to, then an error at the next', async () => {
    const gz = gzipSync(text);
    const cut = gz.subarray(0, gz.length >> 1);
    const { texts, error } = await read([cut]);
    expect(error?.message).toMatch(/not valid gzip data \(unexpected end of file\)/);
    expect(texts).toEqual(wholeLinesOf(cut));
    expect(error?.place?.line).toBe(texts.length + 1);
  });

  it('members one after another (and zero padding) are read as one stream', async () => {
    const half = all.length / 2;
    const first = gzipSync(`${all.slice(0, half).join('\n')}\n`);
    const second = gzipSync(`${all.slice(half).join('\n')}\n`);
    const { texts, error } = await read([Buffer.concat([first, second, Buffer.alloc(16)])]);
    expect(error).toBeUndefined();
    expect(texts).toEqual(all);
  });

  it.each([
    ['one byte first', [1]],
    ['one byte at a time for the header', [1, 1, 1, 1, 1]],
    ['the magic split and the rest in odd pieces', [1, 7, 4093]],
  ])('gzip is recognised on a stream whose reads return %s', async (_what, sizes) => {
    const gz = gzipSync(text);
    const chunks: Buffer[] = [];
    let at = 0;
    for (const size of sizes) {
      chunks.push(gz.subarray(at, at + size));
      at += size;
    }
    for (; at < gz.length; at += 65_536) chunks.push(gz.subarray(at, at + 65_536));
    const { texts, error } = await read(chunks);
    expect(error).toBeUndefined();
    expect(texts).toEqual(all);
  });

  it('a plain stream whose first read is one byte is read as it is', async () => {
    const bytes = Buffer.from(text);
    const { texts } = await read([bytes.subarray(0, 1), bytes.subarray(1)]);
    expect(texts).toEqual(all);
  });
});
