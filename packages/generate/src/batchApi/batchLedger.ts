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
//   {"event":"closed","batch":ID,"status":"completed"|"failed"|"expired"|"cancelled"}
// A torn last line (a kill mid-write) is skipped; so is any other line that is not one of these, with
// a warning naming its place. At opening the ledger is rewritten (atomically) with only the uploads
// that hold a request of a record not yet done.
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

/** The latest submission of one (record, turn), as a resumed agent finds it. */
export interface Submission {
  readonly customId: string;
  readonly call: CallName;
  readonly request: string;
  readonly upload: Upload;
}

export class BatchLedger {
  private readonly uploads = new Map<string, Upload>();
  /** `<id>@t<turn>` -> its latest submission. */
  private readonly latest = new Map<string, Submission>();
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
    ledger.fd = fs.openSync(path, 'a');
    return ledger;
  }

  /** Uploads whose batch is not done with: created and not closed, or not known to be created. */
  public get open(): Upload[] {
    return [...this.uploads.values()].filter((upload) => upload.closed === undefined);
  }

  /** The latest submission of this call's (record, turn), if any. */
  public submission(id: string, turn: number): Submission | undefined {
    return this.latest.get(`${id}@t${turn}`);
  }

  /** The attempt a new submission of (record, turn) gets: one past every one the run made. */
  public nextAttempt(id: string, turn: number): number {
    const latest = this.submission(id, turn);
    return latest === undefined ? 0 : latest.call.attempt + 1;
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
      const key = `${call.id}@t${call.turn}`;
      const before = this.latest.get(key);
      if (before === undefined || before.call.attempt < call.attempt)
        this.latest.set(key, { customId: request.customId, call, request: request.request, upload });
    }
  }

  private forget(upload: Upload): void {
    this.uploads.delete(upload.file);
    for (const request of upload.requests) {
      const call = parseCustomId(request.customId);
      if (call !== undefined && this.latest.get(`${call.id}@t${call.turn}`)?.upload === upload) this.latest.delete(`${call.id}@t${call.turn}`);
    }
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
