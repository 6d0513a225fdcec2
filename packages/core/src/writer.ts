// The one owner of output streams: compact one-line JSON, UTF-8, `\n` after every record,
// buffered writes with backpressure, EPIPE turned into a quiet exit, and `-o FILE` written to a
// temp file that is renamed into place only when the run ends (so FILE is never half-written).
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm, rename } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { BrokenPipe, UsageError } from './errors.js';

const FLUSH_BYTES = 64 * 1024;

export class JsonlWriter {
  private buffered: string[] = [];
  private bufferedBytes = 0;
  private failure: Error | undefined;
  private closed = false;
  private count = 0;

  private constructor(
    private readonly stream: Writable,
    /** Set when the output is a file: the temp file being written and where it goes at close. */
    private readonly file: { readonly temp: string; readonly target: string; readonly raw: WriteStream } | undefined,
  ) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      this.failure = err.code === 'EPIPE' ? new BrokenPipe() : err;
    });
  }

  /** `-` or undefined writes to `stdout`; a path ending in .gz is gzipped. */
  public static async open(target: string | undefined, stdout: Writable, cwd: string): Promise<JsonlWriter> {
    if (target === undefined || target === '-') return new JsonlWriter(stdout, undefined);
    const path = resolve(cwd, target);
    const temp = `${dirname(path)}/.${basename(path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const raw = createWriteStream(temp, { flags: 'wx' });
    await new Promise<void>((ok, fail) => {
      raw.once('open', () => ok());
      raw.once('error', (err: NodeJS.ErrnoException) => fail(new UsageError(`cannot write ${target}: ${err.code === 'ENOENT' ? 'no such directory' : err.message}`)));
    });
    if (path.endsWith('.gz')) {
      const gzip = createGzip();
      gzip.pipe(raw);
      return new JsonlWriter(gzip, { temp, target: path, raw });
    }
    return new JsonlWriter(raw, { temp, target: path, raw });
  }

  /** Records written so far. */
  public get written(): number {
    return this.count;
  }

  public async write(value: unknown): Promise<void> {
    await this.writeLine(JSON.stringify(value));
  }

  /** A line that is already serialised (pass-through of an input line); `\n` is added. */
  public async writeLine(line: string): Promise<void> {
    if (this.failure) throw this.failure;
    this.buffered.push(line, '\n');
    this.bufferedBytes += line.length + 1;
    this.count += 1;
    if (this.bufferedBytes >= FLUSH_BYTES) await this.flush();
  }

  public async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.bufferedBytes === 0) return;
    const data = this.buffered.join('');
    this.buffered = [];
    this.bufferedBytes = 0;
    if (!this.stream.write(data)) await this.drained();
    if (this.failure) throw this.failure;
  }

  private drained(): Promise<void> {
    return new Promise((ok) => {
      const done = (): void => {
        this.stream.off('drain', done);
        this.stream.off('error', done);
        this.stream.off('close', done);
        ok();
      };
      this.stream.on('drain', done);
      this.stream.on('error', done);
      this.stream.on('close', done);
    });
  }

  /** Flushes and, for a file, moves it into place. For stdout, leaves the stream open. */
  public async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    if (!this.file) return;
    const { temp, target, raw } = this.file;
    await new Promise<void>((ok, fail) => {
      raw.once('finish', () => ok());
      raw.once('error', fail);
      this.stream.end();
    });
    await new Promise<void>((ok, fail) => raw.close((err) => (err ? fail(err) : ok())));
    await rename(temp, target);
  }

  /**
   * On an error: a file output is dropped without touching the target; stdout, a stream that
   * already carries earlier records, gets the rest of what was written before the error.
   */
  public async discard(): Promise<void> {
    if (this.closed) return;
    if (!this.file) {
      await this.flush().catch(() => undefined);
      this.closed = true;
      return;
    }
    this.closed = true;
    this.stream.destroy();
    this.file.raw.destroy();
    await rm(this.file.temp, { force: true });
  }
}
