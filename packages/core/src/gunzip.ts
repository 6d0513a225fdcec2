// Decompresses gzip input chunk by chunk, delivering every byte that decodes before damage.
// Node's zlib drops the output of the call that fails (up to a whole output buffer: hundreds of
// lines before a corrupt byte or trailing garbage), so the inflate here is driven directly, and its
// output position is known at the moment of an error.
import { Z_BUF_ERROR, Z_NO_FLUSH, Z_OK, Z_STREAM_END, ZStream, zlibInflate, zlibInflateInit2, zlibInflateReset } from 'pako';

const OUTPUT_BYTES = 1 << 20;
/** zlib's window bits for a gzip header (16) with the largest window (15). */
const GZIP_WINDOW = 16 + 15;

/** Damaged gzip data; what decoded before it was delivered. */
export class GzipError extends Error {}

/**
 * The decompressed bytes of gzip chunks, as chunks of one reused buffer (each valid until the next
 * is asked for). Members written one after another are read as one stream, as gzip does; zero bytes
 * after a member are padding. Damage ends the output with GzipError after the last byte decoded.
 */
export async function* gunzipChunks(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const output = Buffer.allocUnsafe(OUTPUT_BYTES);
  const stream = new ZStream();
  check(stream, zlibInflateInit2(stream, GZIP_WINDOW));
  /** Between members: a new one starts at the next byte that is not padding. */
  let betweenMembers = false;
  for await (const chunk of chunks) {
    let from = 0;
    while (from < chunk.length) {
      if (betweenMembers) {
        while (from < chunk.length && chunk[from] === 0) from += 1;
        if (from === chunk.length) break;
        check(stream, zlibInflateReset(stream));
        betweenMembers = false;
      }
      stream.input = chunk;
      stream.next_in = from;
      stream.avail_in = chunk.length - from;
      for (;;) {
        stream.output = output;
        stream.next_out = 0;
        stream.avail_out = OUTPUT_BYTES;
        const status = zlibInflate(stream, Z_NO_FLUSH);
        const decoded = stream.next_out;
        if (status !== Z_OK && status !== Z_STREAM_END && status !== Z_BUF_ERROR) {
          if (decoded > 0) yield output.subarray(0, decoded);
          throw new GzipError(stream.msg || `inflate status ${status}`);
        }
        if (decoded > 0) yield output.subarray(0, decoded);
        if (status === Z_STREAM_END) {
          betweenMembers = true;
          break;
        }
        if (stream.avail_out > 0 && (stream.avail_in === 0 || decoded === 0)) break;
      }
      from = stream.next_in;
      if (!betweenMembers) break;
    }
  }
  if (!betweenMembers) throw new GzipError('unexpected end of file');
}

function check(stream: ZStream, status: number): void {
  if (status !== Z_OK) throw new GzipError(stream.msg || `inflate status ${status}`);
}
