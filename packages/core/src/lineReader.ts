// Splits byte streams into JSONL lines with bounded memory, knowing each line's place.
// One reader for every CLI, so locations (`file:line`) and the edge cases below are handled once:
// gzip by magic bytes, a UTF-8 BOM at the start of a source, CRLF line ends, blank lines,
// invalid UTF-8, lines over the size cap (discarded without buffering them), a last line with no newline.
import { close, constants, fstatSync, open, openSync, read, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { InputError, UsageError, type Place } from './errors.js';
import { GzipError, gunzipChunks } from './gunzip.js';

export const STDIN_NAME = '<stdin>';
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;
/** How much of an unusable line a reject keeps. */
export const REJECT_RAW_LIMIT = 64 * 1024;

/** A decoded line (no line end), or a line that could not be used as text. */
export type Line =
  | { readonly kind: 'text'; readonly text: string; readonly bytes: Buffer; readonly place: Place; readonly lastWithoutNewline: boolean }
  | { readonly kind: 'bad'; readonly reason: string; readonly raw: string; readonly truncated: boolean; readonly place: Place };

export interface LineReaderOptions {
  readonly maxLineBytes?: number;
  /** Called for conditions that are fixed up rather than rejected (a BOM). */
  readonly onNotice?: (message: string, place: Place) => void;
  /** Called once per whitespace-only line, which is skipped. */
  readonly onBlank?: (place: Place) => void;
  readonly signal?: AbortSignal;
}

export interface InputSource {
  readonly name: string;
  /**
   * The source's bytes in chunks. A chunk may be a reused buffer: it is valid only until the
   * next one is asked for (readers keep what they need longer by copying it).
   */
  readonly chunks: (signal: AbortSignal | undefined) => AsyncGenerator<Buffer>;
}

/** `-` (or no operand at all) is stdin; anything else a file path. No stream given: the process's own stdin. */
export function inputSources(operands: readonly string[], stdin: Readable | undefined, cwd: string): InputSource[] {
  const list = operands.length === 0 ? ['-'] : operands;
  checkOperands(list);
  return list.map((operand): InputSource => {
    if (operand !== '-') {
      const path = resolvePath(cwd, operand);
      return { name: operand, chunks: (signal) => fileChunks(operand, path, signal) };
    }
    return { name: STDIN_NAME, chunks: (signal) => (stdin ? streamChunks(STDIN_NAME, stdin, signal) : processStdinChunks(signal)) };
  });
}

/** Input operands a run can read: stdin (`-`) at most once. */
export function checkOperands(operands: readonly string[]): void {
  if (operands.filter((o) => o === '-').length > 1) throw new UsageError('stdin (-) can be read only once; name it once among the inputs');
}

/**
 * The process's stdin: a regular file is read like any file; a pipe or terminal through the
 * stream, because a thread-pool read on an idle pipe would block the process's exit after a signal.
 */
function processStdinChunks(signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  let regularFile = false;
  try {
    regularFile = fstatSync(0).isFile();
  } catch {
    // No stdin at all: the stream reports it.
  }
  return regularFile ? fdChunks(STDIN_NAME, 0, signal) : streamChunks(STDIN_NAME, process.stdin, signal);
}

function resolvePath(cwd: string, path: string): string {
  return path.startsWith('/') ? path : `${cwd}/${path}`;
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const READ_BYTES = 1 << 20;

// Reading a file descriptor into two reused buffers, the next read running while the current chunk
// is split and parsed, rather than through a stream that allocates a buffer per chunk: this halves
// the reader's CPU (the allocations showed up as system time) and keeps the main thread busy.
async function* fdChunks(name: string, fd: number, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  const buffers = [Buffer.allocUnsafe(READ_BYTES), Buffer.allocUnsafe(READ_BYTES)] as const;
  let current = 0;
  let next = prefetch(fd, buffers[current]);
  let idle = 1;
  for (;;) {
    let bytesRead: number;
    try {
      bytesRead = await abortable(next, signal);
    } catch (err) {
      if (signal?.aborted) return;
      // A pipe left non-blocking by whoever set it up: wait for data, backing off to 50 ms.
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        await new Promise((r) => setTimeout(r, idle));
        idle = Math.min(idle * 2, 50);
        next = prefetch(fd, buffers[current]);
        continue;
      }
      throw readError(name, err);
    }
    idle = 1;
    if (bytesRead === 0) return;
    const chunk = buffers[current].subarray(0, bytesRead);
    current = 1 - current;
    next = prefetch(fd, buffers[current]);
    yield chunk;
  }
}

/** A read that may be abandoned (the consumer stopped): its failure must not go unhandled. */
function prefetch(fd: number, buffer: Buffer): Promise<number> {
  const pending = readInto(fd, buffer);
  pending.catch(() => undefined);
  return pending;
}

function readInto(fd: number, buffer: Buffer): Promise<number> {
  return new Promise((ok, fail) => read(fd, buffer, 0, buffer.length, null, (err, n) => (err ? fail(err) : ok(n))));
}

/** Resolves with the promise, or rejects as soon as the run is asked to stop (a read may never end). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise((ok, fail) => {
    const onAbort = (): void => fail(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        ok(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        fail(e);
      },
    );
  });
}

async function* fileChunks(name: string, path: string, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  let kind: Stats;
  try {
    kind = await stat(path);
  } catch (err) {
    throw readError(name, err);
  }
  if (kind.isFIFO() || kind.isSocket()) {
    yield* pipeChunks(name, path, signal);
    return;
  }
  let fd: number;
  try {
    fd = await new Promise<number>((ok, fail) => open(path, 'r', (err, f) => (err ? fail(err) : ok(f))));
  } catch (err) {
    throw readError(name, err);
  }
  try {
    yield* fdChunks(name, fd, signal);
  } finally {
    close(fd, () => undefined);
  }
}

/**
 * A named pipe (or `<(...)`, a /dev/fd pipe) read as a stream, as stdin is: a thread-pool open or
 * read that waits for a writer would keep the process from exiting after a signal (libuv joins its
 * threads at exit). Opened non-blocking, it waits for its writer in the event loop instead.
 */
async function* pipeChunks(name: string, path: string, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  // A stop that came while the path was looked up would never reach the listener below.
  if (signal?.aborted) return;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw readError(name, err);
  }
  const pipe = new Socket({ fd, readable: true, writable: false });
  const onAbort = (): void => {
    pipe.destroy();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    yield* streamChunks(name, pipe, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    pipe.destroy();
  }
}

async function* streamChunks(name: string, stream: Readable, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) {
      if (signal?.aborted) return;
      yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    }
  } catch (err) {
    // A stop request may destroy the stream to unblock the read: that ends the input.
    if (signal?.aborted) return;
    throw readError(name, err);
  }
}

/**
 * Bytes of a source, gunzipped when it starts with the gzip magic bytes (works on stdin too,
 * however few bytes its first read returns).
 */
async function* sourceBytes(source: InputSource, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  const chunks = source.chunks(signal);
  try {
    const head: Buffer[] = [];
    let headBytes = 0;
    while (headBytes < GZIP_MAGIC.length) {
      const next = await chunks.next();
      if (next.done) break;
      // Copied: the chunk's buffer may be reused by the next read.
      head.push(Buffer.from(next.value));
      headBytes += next.value.length;
    }
    const start = head.length === 1 ? head : [Buffer.concat(head)];
    const rest = (async function* (): AsyncGenerator<Buffer> {
      yield* start;
      yield* chunks;
    })();
    if (headBytes >= GZIP_MAGIC.length && start[0].subarray(0, GZIP_MAGIC.length).equals(GZIP_MAGIC)) yield* gunzipChunks(rest);
    else yield* rest;
  } finally {
    await chunks.return(undefined);
  }
}

function readError(name: string, err: unknown): InputError {
  const e = err as NodeJS.ErrnoException;
  const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.code === 'EACCES' ? 'permission denied' : e.message;
  return new InputError(`cannot read ${name}: ${why}`);
}

/**
 * Lines of one source, in batches (one per chunk read) to keep per-line overhead low.
 * Memory is bounded by the chunk size plus the longest line kept (<= maxLineBytes).
 */
export async function* readLines(source: InputSource, options: LineReaderOptions = {}): AsyncGenerator<Line[]> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  // The limit is on a line's content: a CRLF file's lines may hold one byte more, the CR, until it is cut.
  const rawLimit = maxLineBytes + 1;
  let lineNo = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Set while skipping the rest of an over-long line: only its head is kept, for the reject.
  let oversized: { head: Buffer; bytes: number } | undefined;
  let atStart = true;

  const place = (): Place => ({ source: source.name, line: lineNo });

  const finishLine = (bytes: Buffer, out: Line[], lastWithoutNewline: boolean, knownUtf8 = false): void => {
    lineNo += 1;
    let body = bytes;
    if (atStart) {
      atStart = false;
      if (body.subarray(0, 3).equals(BOM)) {
        body = body.subarray(3);
        options.onNotice?.('UTF-8 byte order mark removed (JSON Lines files have none)', place());
      }
    }
    if (body.length > 0 && body[body.length - 1] === 0x0d) body = body.subarray(0, body.length - 1);
    if (body.length > maxLineBytes) {
      out.push(overLimit(body.subarray(0, REJECT_RAW_LIMIT)));
      return;
    }
    pushDecoded(body, out, lastWithoutNewline, knownUtf8);
  };

  const pushDecoded = (body: Buffer, out: Line[], lastWithoutNewline: boolean, knownUtf8: boolean): void => {
    if (!knownUtf8 && !isUtf8(body)) {
      out.push({ kind: 'bad', reason: 'invalid UTF-8', ...rawOf(body), place: place() });
      return;
    }
    const text = body.toString('utf8');
    if (isBlank(text)) {
      options.onBlank?.(place());
      return;
    }
    out.push({ kind: 'text', text, bytes: body, place: place(), lastWithoutNewline });
  };

  const overLimit = (head: Buffer): Line => ({
    kind: 'bad',
    reason: `line is longer than the limit of ${maxLineBytes} bytes (--max-line-bytes); it was skipped without being read whole`,
    raw: head.toString('utf8'),
    truncated: true,
    place: place(),
  });

  const finishOversized = (out: Line[]): void => {
    if (!oversized) return;
    lineNo += 1;
    atStart = false;
    out.push(overLimit(oversized.head));
    oversized = undefined;
  };

  for await (const chunk of located(sourceBytes(source, options.signal), source.name, () => lineNo)) {
    if (options.signal?.aborted) return;
    const out: Line[] = [];
    let pos = 0;
    // One UTF-8 check for all the lines that lie wholly in this chunk (no UTF-8 sequence contains a
    // newline byte, so each of them is valid when the run of them is); the others are checked alone.
    const wholeLinesFrom = pendingBytes > 0 || oversized ? chunk.indexOf(0x0a) + 1 : 0;
    const lastNewline = chunk.lastIndexOf(0x0a);
    const wholeLinesUtf8 = lastNewline > wholeLinesFrom && isUtf8(chunk.subarray(wholeLinesFrom, lastNewline));
    for (;;) {
      const nl = chunk.indexOf(0x0a, pos);
      if (nl === -1) {
        const rest = chunk.subarray(pos);
        if (oversized) {
          oversized.bytes += rest.length;
        } else if (pendingBytes + rest.length > rawLimit) {
          oversized = { head: headOf([...pending, rest]), bytes: pendingBytes + rest.length };
          pending = [];
          pendingBytes = 0;
        } else if (rest.length > 0) {
          // Copied: the chunk's buffer may be reused by the next read.
          pending.push(Buffer.from(rest));
          pendingBytes += rest.length;
        }
        break;
      }
      if (oversized) {
        finishOversized(out);
      } else if (pendingBytes > 0) {
        const tail = chunk.subarray(pos, nl);
        if (pendingBytes + tail.length > rawLimit) {
          oversized = { head: headOf([...pending, tail]), bytes: 0 };
          finishOversized(out);
        } else {
          finishLine(Buffer.concat([...pending, tail]), out, false);
        }
        pending = [];
        pendingBytes = 0;
      } else if (nl - pos > rawLimit) {
        oversized = { head: Buffer.from(chunk.subarray(pos, pos + REJECT_RAW_LIMIT)), bytes: nl - pos };
        finishOversized(out);
      } else {
        finishLine(chunk.subarray(pos, nl), out, false, wholeLinesUtf8 && pos >= wholeLinesFrom);
      }
      pos = nl + 1;
    }
    if (out.length > 0) yield out;
  }
  // Stopped by a signal: the partial line is input that never fully arrived, not a torn file.
  if (options.signal?.aborted) return;
  const out: Line[] = [];
  if (oversized) finishOversized(out);
  else if (pendingBytes > 0) finishLine(Buffer.concat(pending), out, true);
  if (out.length > 0) yield out;
}

/**
 * Damaged gzip data ends the source with an error at the line it broke (the lines before it were
 * read); what comes after cannot be read, so it is bad input under any --on-error.
 */
async function* located(bytes: AsyncGenerator<Buffer>, name: string, linesRead: () => number): AsyncGenerator<Buffer> {
  try {
    yield* bytes;
  } catch (err) {
    if (!(err instanceof GzipError)) throw err;
    const last = linesRead();
    throw new InputError(
      `not valid gzip data (${err.message}); ${last === 0 ? 'no line' : `line ${last} is the last one`} read whole, the rest of the file cannot be read`,
      { source: name, line: last + 1 },
    );
  }
}

/** The first REJECT_RAW_LIMIT bytes of a line held in parts, without joining the whole line. */
function headOf(parts: readonly Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (const part of parts) {
    if (size >= REJECT_RAW_LIMIT) break;
    const piece = part.subarray(0, REJECT_RAW_LIMIT - size);
    kept.push(piece);
    size += piece.length;
  }
  return Buffer.concat(kept);
}

function rawOf(body: Buffer): { raw: string; truncated: boolean } {
  const truncated = body.length > REJECT_RAW_LIMIT;
  return { raw: body.subarray(0, REJECT_RAW_LIMIT).toString('utf8'), truncated };
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}
