// The one owner of output streams: compact one-line JSON, UTF-8, `\n` after every record,
// buffered writes with backpressure, EPIPE turned into a quiet exit, and `-o FILE` written to a
// temp file that is renamed into place only when the run ends (so FILE is never half-written).
import { close, fstatSync, open, write } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { tempPath } from './atomicFile.js';
import { BrokenPipe, UsageError } from './errors.js';
import { redact } from './secrets.js';

const BUFFER_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/** Where full buffers go. `write` resolves once the buffer may be reused. */
interface Sink {
  write(data: Buffer): Promise<void>;
  /** Ends the output (the stream, or the file descriptor). */
  end(): Promise<void>;
  /** Gives up on the output after an error. */
  destroy(): void;
}

/**
 * Writes a file descriptor through the thread pool: no stream allocating per chunk, and the
 * writer fills its other buffer meanwhile. Used for -o files and for stdout when that is a file.
 */
function fdSink(fd: number, closeAtEnd: boolean): Sink {
  const writeSome = (data: Buffer, offset: number): Promise<number> =>
    new Promise((ok, fail) => write(fd, data, offset, data.length - offset, null, (err, n) => (err ? fail(err) : ok(n))));
  return {
    async write(data) {
      let idle = 1;
      for (let offset = 0; offset < data.length; ) {
        try {
          offset += await writeSome(data, offset);
          idle = 1;
        } catch (err) {
          // A pipe left non-blocking (Node does so for stdout pipes): wait for room, backing off.
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
          await new Promise((r) => setTimeout(r, idle));
          idle = Math.min(idle * 2, 50);
        }
      }
    },
    end: () => (closeAtEnd ? closeFd(fd) : Promise.resolve()),
    destroy: () => {
      if (closeAtEnd) close(fd, () => undefined);
    },
  };
}

function closeFd(fd: number): Promise<void> {
  return new Promise((ok, fail) => close(fd, (err) => (err ? fail(err) : ok())));
}

function streamSink(stream: Writable, endAtEnd: boolean, finished?: Promise<void>): Sink {
  let failure: Error | undefined;
  stream.on('error', (err: Error) => {
    failure = err;
  });
  return {
    write: (data) =>
      new Promise((ok, fail) => {
        if (failure) return fail(failure);
        // A copy: a PassThrough or Transform hands the very buffer on to its reader, which may keep
        // it after the write is done, while the writer reuses its buffers.
        stream.write(Buffer.from(data), (err?: Error | null) => (err ? fail(err) : ok()));
      }),
    end: async () => {
      if (!endAtEnd) return;
      await new Promise<void>((ok) => stream.end(ok));
      await finished;
    },
    destroy: () => stream.destroy(),
  };
}

/**
 * stdout as a regular file or /dev/null: written through its fd. A pipe or terminal keeps the
 * stream, because a thread-pool write blocked on a full pipe would block the process's exit.
 */
function stdoutFdIsSafe(stream: Writable): boolean {
  if (stream !== process.stdout) return false;
  try {
    const stat = fstatSync(1);
    return stat.isFile() || (stat.isCharacterDevice() && process.stdout.isTTY !== true);
  } catch {
    return false;
  }
}

function openFd(path: string, target: string): Promise<number> {
  return new Promise((ok, fail) =>
    open(path, 'wx', (err, fd) =>
      err ? fail(new UsageError(`cannot write ${target}: ${err.code === 'ENOENT' ? 'no such directory' : err.message}`)) : ok(fd),
    ),
  );
}

/** Worst case for a string: 3 UTF-8 bytes per UTF-16 unit; the newline included. */
function mostBytes(line: string | Uint8Array): number {
  return (typeof line === 'string' ? line.length * 3 : line.length) + 1;
}

function toFailure(err: unknown): Error {
  return (err as NodeJS.ErrnoException).code === 'EPIPE' ? new BrokenPipe() : (err as Error);
}

export class JsonlWriter {
  // Two buffers: one is filled while the other is being written.
  private buffer: Buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private spare: Buffer | undefined = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  private inFlight: Promise<void> = Promise.resolve();
  /** The last queued step while any is waiting; undefined when the fast path may copy at once. */
  private queue: Promise<void> | undefined;
  private failure: Error | undefined;
  private closed = false;
  private count = 0;

  private constructor(
    private readonly sink: Sink,
    /** Set when the output is a file: the temp file being written and where it goes at close. */
    private readonly file: { readonly temp: string; readonly target: string } | undefined,
  ) {}

  /** `-` or undefined writes to `stdout`; a path ending in .gz is gzipped. */
  public static async open(target: string | undefined, stdout: Writable, cwd: string): Promise<JsonlWriter> {
    if (target === undefined || target === '-') {
      return new JsonlWriter(stdoutFdIsSafe(stdout) ? fdSink(1, false) : streamSink(stdout, false), undefined);
    }
    const path = resolve(cwd, target);
    const temp = tempPath(path);
    const fd = await openFd(temp, target);
    if (!path.endsWith('.gz')) return new JsonlWriter(fdSink(fd, true), { temp, target: path });
    const gzip = createGzip();
    const file = fdSink(fd, true);
    // The compressed bytes go to the file in order, each write awaited (fdSink reuses nothing).
    let chain = Promise.resolve();
    gzip.on('data', (chunk: Buffer) => {
      gzip.pause();
      chain = chain.then(() => file.write(chunk)).finally(() => gzip.resume());
    });
    const finished = new Promise<void>((ok, fail) => {
      gzip.on('end', () => void chain.then(() => file.end()).then(ok, fail));
      gzip.on('error', fail);
    });
    return new JsonlWriter(streamSink(gzip, true, finished), { temp, target: path });
  }

  /** Records written so far. */
  public get written(): number {
    return this.count;
  }

  /** A value serialised here (a reject, a failure record) loses the run's secrets on the way (secrets.ts). */
  public async write(value: unknown): Promise<void> {
    await this.writeLine(redact(JSON.stringify(value)));
  }

  /**
   * A line that is already serialised, `\n` added. Pass an input record's `bytes` to copy it
   * through unchanged without encoding it again. Any number of callers may await this at once:
   * a line that fits while nothing is queued is copied at once; anything else (a flush, a line
   * too big for the room left) waits in one queue, so a line is always placed whole, in call order.
   */
  public writeLine(line: string | Uint8Array): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.count += 1;
    if (this.queue === undefined && this.used + mostBytes(line) <= this.buffer.length) {
      this.place(line);
      return Promise.resolve();
    }
    return this.enqueue(() => this.writeQueued(line));
  }

  /** Hands the filled buffer to the sink (after every line already given) and goes on with the other one. */
  public flush(): Promise<void> {
    return this.enqueue(() => this.handOff());
  }

  /** Runs `step` after every step queued before it; the fast path stays off while any is queued. */
  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = (this.queue ?? Promise.resolve()).then(step);
    const tail = run.catch(() => undefined);
    this.queue = tail;
    void tail.then(() => {
      if (this.queue === tail) this.queue = undefined;
    });
    return run;
  }

  /** Only ever runs at the head of the queue, so nothing else touches the buffer meanwhile. */
  private async writeQueued(line: string | Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    const most = mostBytes(line);
    if (this.used + most > this.buffer.length) await this.handOff();
    if (most <= this.buffer.length) {
      this.place(line);
      return;
    }
    // Too big for the buffer: written on its own, after everything before it.
    await this.settle(this.inFlight);
    const whole = Buffer.concat([typeof line === 'string' ? Buffer.from(line, 'utf8') : line, Buffer.of(NEWLINE)]);
    await this.settle(this.sink.write(whole));
  }

  /** Copies a line known to fit into the buffer. */
  private place(line: string | Uint8Array): void {
    if (typeof line === 'string') this.used += this.buffer.write(line, this.used, 'utf8');
    else {
      this.buffer.set(line, this.used);
      this.used += line.length;
    }
    this.buffer[this.used++] = NEWLINE;
  }

  private async handOff(): Promise<void> {
    await this.settle(this.inFlight);
    if (this.used === 0) return;
    const full = this.buffer.subarray(0, this.used);
    const filled = this.buffer;
    this.buffer = this.spare ?? Buffer.allocUnsafe(BUFFER_BYTES);
    this.spare = undefined;
    this.used = 0;
    this.inFlight = this.sink.write(full).then(() => {
      this.spare = filled;
    });
    this.inFlight.catch(() => undefined);
  }

  private async settle(pending: Promise<void>): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      await pending;
    } catch (err) {
      this.failure = toFailure(err);
      throw this.failure;
    }
  }

  /** Flushes and, for a file, moves it into place. For stdout, leaves the stream open. */
  public async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    await this.settle(this.inFlight);
    this.closed = true;
    await this.sink.end();
    if (this.file) await rename(this.file.temp, this.file.target);
  }

  /**
   * On an error: a file output is dropped without touching the target; stdout, a stream that
   * already carries earlier records, gets the rest of what was written before the error.
   */
  public async discard(): Promise<void> {
    if (this.closed) return;
    if (!this.file) {
      await this.flush().catch(() => undefined);
      await this.inFlight.catch(() => undefined);
      this.closed = true;
      return;
    }
    this.closed = true;
    await this.queue;
    await this.inFlight.catch(() => undefined);
    this.sink.destroy();
    await rm(this.file.temp, { force: true });
  }
}
