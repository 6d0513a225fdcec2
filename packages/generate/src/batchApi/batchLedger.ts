// The ledger of a run's provider batches (<run>/batch-api.jsonl): every input file uploaded with the
// custom_ids it carries (and the hash of each request), the batch created from it, and when the batch
// was done with. Each line is fsynced before the step it records is followed by the next: the upload
// line before the batch is created, the batch line before it is polled. So a run killed at any moment
// leaves a ledger from which --resume re-attaches to what was already submitted and never submits a
// custom_id twice: an upload without its batch line is looked up among the provider's batches by its
// file id (batchRounds.ts), and the attempts of every (record, turn) are counted from the ledger.
//
// A line is one of
//   {"event":"upload","file":ID,"requests":[{"custom_id","request"}]}
//   {"event":"batch","file":ID,"batch":ID}
//   {"event":"closed","file":ID,"batch":ID,"status":"completed"|"failed"|"expired"|"cancelled"|"not-created"}
// A torn last line (a kill mid-write) is skipped; so is any other line that is not one of these, with
// a warning naming its place. At opening the ledger is rewritten (atomically) with only the uploads
// that hold a request of a record not yet done.
//
// In memory it holds the uploads not closed (for a resumed call to re-attach to) and, per record not
// yet committed, the last attempt of each turn: what a run of any size keeps is bounded by its
// prompts running and its batches in flight.
import fs from 'node:fs';
import { join } from 'node:path';
import { isPlainObject, writeFileAtomic, type Logger } from '@hermes-datagen/core';
import { parseCustomId, type CallName } from './customId.js';

export const LEDGER_FILE = 'batch-api.jsonl';

export interface LedgerRequest {
  readonly customId: string;
  /** The request's hash (agentCalls.ts requestHash): a resumed agent re-attaches only for the very same request. */
  readonly request: string;
}

export interface Upload {
  readonly file: string;
  readonly requests: readonly LedgerRequest[];
  batch?: string | undefined;
  closed?: string | undefined;
}

/** The latest submission of one (record, turn) in an upload not closed, as a resumed agent finds it. */
export interface Submission {
  readonly customId: string;
  readonly call: CallName;
  readonly request: string;
  readonly upload: Upload;
}

export class BatchLedger {
  /** Uploads not closed (while the file is read: all of them). */
  private readonly uploads = new Map<string, Upload>();
  /** `<id>@t<turn>` -> its latest submission, while its upload is not closed. */
  private readonly latest = new Map<string, Submission>();
  /** Record id -> turn -> the highest attempt submitted. */
  private readonly attempts = new Map<string, Map<number, number>>();
  private fd: number | undefined;

  private constructor(private readonly path: string) {}

  /** Reads the run's ledger, keeps what belongs to records not done (`isDone`), and opens it for appending. */
  public static async open(runDir: string, isDone: (id: string) => boolean, log: Logger): Promise<BatchLedger> {
    const path = join(runDir, LEDGER_FILE);
    const ledger = new BatchLedger(path);
    let text = '';
    try {
      text = await fs.promises.readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    ledger.load(text, log);
    for (const upload of [...ledger.uploads.values()]) {
      if (upload.requests.every((request) => isDone(parseCustomId(request.customId)?.id ?? ''))) ledger.forget(upload);
    }
    await writeFileAtomic(path, [...ledger.uploads.values()].map(uploadLines).join(''));
    for (const upload of [...ledger.uploads.values()]) if (upload.closed !== undefined) ledger.release(upload);
    ledger.fd = fs.openSync(path, 'a');
    return ledger;
  }

  /** Uploads whose batch is not done with: created and not closed, or not known to be created. */
  public get open(): Upload[] {
    return [...this.uploads.values()];
  }

  /** The latest submission of this call's (record, turn), if any. */
  public submission(id: string, turn: number): Submission | undefined {
    return this.latest.get(`${id}@t${turn}`);
  }

  /** The attempt a new submission of (record, turn) gets: one past every one the run made. */
  public nextAttempt(id: string, turn: number): number {
    const attempt = this.attempts.get(id)?.get(turn);
    return attempt === undefined ? 0 : attempt + 1;
  }

  /** The record is committed: its attempts are needed no more (its uploads go at the next opening). */
  public committed(id: string): void {
    this.attempts.delete(id);
  }

  public upload(file: string): Upload | undefined {
    return this.uploads.get(file);
  }

  /** An input file was uploaded: recorded (fsynced) before its batch is created. */
  public recordUpload(file: string, requests: readonly LedgerRequest[]): Upload {
    const upload: Upload = { file, requests };
    this.append(uploadLine(upload));
    this.addUpload(upload);
    return upload;
  }

  /** Its batch was created: recorded (fsynced) before it is polled. */
  public recordBatch(upload: Upload, batch: string): void {
    this.append(`${JSON.stringify({ event: 'batch', file: upload.file, batch })}\n`);
    upload.batch = batch;
  }

  /** The batch is done with (its outcomes handed over, or it was cancelled, or never created). */
  public recordClosed(upload: Upload, status: string): void {
    if (upload.closed !== undefined) return;
    this.append(`${JSON.stringify({ event: 'closed', file: upload.file, ...(upload.batch === undefined ? {} : { batch: upload.batch }), status })}\n`);
    upload.closed = status;
    this.release(upload);
  }

  public close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private append(line: string): void {
    if (this.fd === undefined) throw new Error('the batch ledger is closed');
    const data = Buffer.from(line);
    for (let offset = 0; offset < data.length; ) offset += fs.writeSync(this.fd, data, offset);
    fs.fsyncSync(this.fd);
  }

  private addUpload(upload: Upload): void {
    this.uploads.set(upload.file, upload);
    for (const request of upload.requests) {
      const call = parseCustomId(request.customId);
      if (call === undefined) continue;
      const turns = this.attempts.get(call.id) ?? new Map<number, number>();
      this.attempts.set(call.id, turns);
      turns.set(call.turn, Math.max(call.attempt, turns.get(call.turn) ?? -1));
      const key = `${call.id}@t${call.turn}`;
      const before = this.latest.get(key);
      if (before === undefined || before.call.attempt < call.attempt)
        this.latest.set(key, { customId: request.customId, call, request: request.request, upload });
    }
  }

  /** A closed upload leaves memory; the attempts it made stay counted. */
  private release(upload: Upload): void {
    this.uploads.delete(upload.file);
    for (const request of upload.requests) {
      const call = parseCustomId(request.customId);
      if (call !== undefined && this.latest.get(`${call.id}@t${call.turn}`)?.upload === upload) this.latest.delete(`${call.id}@t${call.turn}`);
    }
  }

  /** An upload all of whose records are done: gone, with their attempts. */
  private forget(upload: Upload): void {
    this.release(upload);
    for (const request of upload.requests) this.attempts.delete(parseCustomId(request.customId)?.id ?? '');
  }

  private load(text: string, log: Logger): void {
    const lines = text.split('\n');
    // The last piece is '' after a whole last line; anything else there is a line a kill cut short.
    const torn = lines.pop();
    if (torn !== undefined && torn !== '') log.warn(`${this.path}:${lines.length + 1}: a line cut short (a run killed mid-write) is skipped`);
    lines.forEach((line, index) => {
      if (line === '') return;
      const problem = this.apply(line);
      if (problem !== undefined) log.warn(`${this.path}:${index + 1}: ${problem}; the line is skipped`, undefined, 'batch-ledger');
    });
  }

  /** Applies one line; what is wrong with it, if anything. */
  private apply(line: string): string | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return 'not JSON';
    }
    if (!isPlainObject(value)) return 'not a JSON object';
    const file = value['file'];
    if (typeof file !== 'string') return 'no "file"';
    switch (value['event']) {
      case 'upload': {
        const requests = value['requests'];
        if (!Array.isArray(requests)) return 'an upload without "requests"';
        const read: LedgerRequest[] = [];
        for (const request of requests) {
          if (!isPlainObject(request) || typeof request['custom_id'] !== 'string' || typeof request['request'] !== 'string')
            return 'a request without custom_id and request';
          read.push({ customId: request['custom_id'], request: request['request'] });
        }
        this.addUpload({ file, requests: read });
        return undefined;
      }
      case 'batch': {
        const upload = this.uploads.get(file);
        if (upload === undefined || typeof value['batch'] !== 'string') return 'a batch of no upload before it';
        upload.batch = value['batch'];
        return undefined;
      }
      case 'closed': {
        const upload = this.uploads.get(file);
        if (upload === undefined || typeof value['status'] !== 'string') return 'a close of no upload before it';
        upload.closed = value['status'];
        return undefined;
      }
      default:
        return `an unknown event ${JSON.stringify(value['event'])}`;
    }
  }
}

function uploadLine(upload: Upload): string {
  return `${JSON.stringify({ event: 'upload', file: upload.file, requests: upload.requests.map((r) => ({ custom_id: r.customId, request: r.request })) })}\n`;
}

/** An upload's lines as they would be appended: what the ledger is rewritten with at opening. */
function uploadLines(upload: Upload): string {
  let text = uploadLine(upload);
  if (upload.batch !== undefined) text += `${JSON.stringify({ event: 'batch', file: upload.file, batch: upload.batch })}\n`;
  if (upload.closed !== undefined)
    text += `${JSON.stringify({ event: 'closed', file: upload.file, ...(upload.batch === undefined ? {} : { batch: upload.batch }), status: upload.closed })}\n`;
  return text;
}
