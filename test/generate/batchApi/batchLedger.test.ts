// The ledger of provider batches on a real directory: every step fsynced and read back by a resume,
// a torn last line and a bad line skipped with their place, attempts counted across invocations so
// that no custom_id is made twice, and the uploads of done records dropped when it opens.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Logger } from '@hermes-datagen/core';
import { BatchLedger, LEDGER_FILE } from '@hermes-datagen/generate/internal/batchApi/batchLedger.js';
import { tempDir } from '../../util/cli.js';

function logger(): { log: Logger; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { log: new Logger('test', stream, { color: false }), text: () => text };
}
const notDone = (): boolean => false;

describe('BatchLedger', () => {
  it('reads back uploads, their batches and their closes; the latest attempt of each (record, turn)', async () => {
    const dir = tempDir('hermes-ledger-');
    const { log } = logger();
    const first = await BatchLedger.open(dir, notDone, log);
    const a = first.recordUpload('file-a', [
      { customId: 'p1@t0', request: 'h1' },
      { customId: 'p2@t0', request: 'h2' },
    ]);
    first.recordBatch(a, 'batch-a');
    first.recordClosed(a, 'expired');
    const b = first.recordUpload('file-b', [{ customId: 'p1@t0r1', request: 'h1' }]);
    first.recordBatch(b, 'batch-b');
    first.recordUpload('file-c', [{ customId: 'p3@t2', request: 'h3' }]);
    first.close();

    const second = await BatchLedger.open(dir, notDone, log);
    expect(second.open.map((upload) => [upload.file, upload.batch])).toEqual([
      ['file-b', 'batch-b'],
      ['file-c', undefined],
    ]);
    expect(second.submission('p1', 0)).toMatchObject({ customId: 'p1@t0r1', request: 'h1', call: { id: 'p1', turn: 0, attempt: 1 } });
    expect(second.submission('p1', 0)?.upload.file).toBe('file-b');
    // A closed upload is nothing to re-attach to; its attempts still count.
    expect(second.submission('p2', 0)).toBeUndefined();
    expect(second.nextAttempt('p1', 0)).toBe(2);
    expect(second.nextAttempt('p2', 0)).toBe(1);
    expect(second.nextAttempt('p3', 2)).toBe(1);
    expect(second.nextAttempt('p3', 3)).toBe(0);
    expect(second.submission('p4', 0)).toBeUndefined();
    second.close();
  });

  it('skips a torn last line (a kill mid-write), saying where, and keeps every whole line before it', async () => {
    const dir = tempDir('hermes-ledger-torn-');
    const { log, text } = logger();
    const first = await BatchLedger.open(dir, notDone, log);
    const upload = first.recordUpload('file-a', [{ customId: 'p1@t0', request: 'h1' }]);
    first.close();
    const whole = JSON.stringify({ event: 'batch', file: 'file-a', batch: 'batch-a' });
    appendFileSync(join(dir, LEDGER_FILE), whole.slice(0, 17));
    expect(upload.batch).toBeUndefined();

    const second = await BatchLedger.open(dir, notDone, log);
    expect(text()).toMatch(new RegExp(`${LEDGER_FILE}:2: a line cut short \\(a run killed mid-write\\) is skipped`));
    // The batch line never made it: the upload is open and not known to have a batch (it is looked up at the provider).
    expect(second.open.map((u) => [u.file, u.batch])).toEqual([['file-a', undefined]]);
    // The ledger was rewritten whole: nothing torn is left for the next line to be glued to.
    expect(readFileSync(join(dir, LEDGER_FILE), 'utf8').endsWith('\n')).toBe(true);
    second.recordBatch(second.open[0]!, 'batch-a');
    second.close();
    const third = await BatchLedger.open(dir, notDone, log);
    expect(third.open[0]?.batch).toBe('batch-a');
    third.close();
  });

  it('skips a line that is not one of its events, naming file and line, and reads on', async () => {
    const dir = tempDir('hermes-ledger-bad-');
    const { log, text } = logger();
    writeFileSync(
      join(dir, LEDGER_FILE),
      [
        JSON.stringify({ event: 'upload', file: 'f1', requests: [{ custom_id: 'p1@t0', request: 'h' }] }),
        'garbage',
        JSON.stringify({ event: 'batch', file: 'nowhere', batch: 'b0' }),
        JSON.stringify({ event: 'upload', file: 'f2', requests: [{ custom_id: 7 }] }),
        JSON.stringify({ event: 'launch', file: 'f1' }),
        JSON.stringify({ event: 'batch', file: 'f1', batch: 'b1' }),
        '',
      ].join('\n'),
    );
    const ledger = await BatchLedger.open(dir, notDone, log);
    const warnings = text();
    expect(warnings).toContain(`${LEDGER_FILE}:2: not JSON; the line is skipped`);
    expect(warnings).toContain(`${LEDGER_FILE}:3: a batch of no upload before it; the line is skipped`);
    expect(warnings).toContain(`${LEDGER_FILE}:4: a request without custom_id and request; the line is skipped`);
    expect(warnings).toContain(`${LEDGER_FILE}:5: an unknown event "launch"; the line is skipped`);
    expect(ledger.open.map((u) => [u.file, u.batch])).toEqual([['f1', 'b1']]);
    ledger.close();
  });

  it('drops at opening the uploads whose records are all done, and keeps one that holds any record still to run', async () => {
    const dir = tempDir('hermes-ledger-done-');
    const { log } = logger();
    const first = await BatchLedger.open(dir, notDone, log);
    first.recordUpload('f-done', [
      { customId: 'p1@t0', request: 'h' },
      { customId: 'p1/d0.0@t0', request: 'h' },
    ]);
    first.recordUpload('f-mixed', [
      { customId: 'p1@t1', request: 'h' },
      { customId: 'p2@t0', request: 'h' },
    ]);
    first.close();
    const done = new Set(['p1', 'p1/d0.0']);
    const second = await BatchLedger.open(dir, (id) => done.has(id), log);
    expect(second.open.map((u) => u.file)).toEqual(['f-mixed']);
    expect(second.upload('f-done')).toBeUndefined();
    second.close();
    expect(readFileSync(join(dir, LEDGER_FILE), 'utf8')).not.toContain('f-done');
  });

  it('lets a closed upload go from memory, still counting its attempts, and forgets a committed record', async () => {
    const dir = tempDir('hermes-ledger-memory-');
    const ledger = await BatchLedger.open(dir, notDone, logger().log);
    const upload = ledger.recordUpload('f1', [
      { customId: 'p1@t0', request: 'h' },
      { customId: 'p2@t0', request: 'h' },
    ]);
    ledger.recordBatch(upload, 'b1');
    expect(ledger.submission('p1', 0)?.customId).toBe('p1@t0');
    ledger.recordClosed(upload, 'completed');
    expect(ledger.open).toEqual([]);
    expect(ledger.submission('p1', 0)).toBeUndefined();
    expect(ledger.nextAttempt('p1', 0)).toBe(1);
    ledger.committed('p1');
    expect(ledger.nextAttempt('p1', 0)).toBe(0);
    expect(ledger.nextAttempt('p2', 0)).toBe(1);
    ledger.close();
  });

  it('refuses to append once closed', async () => {
    const dir = tempDir('hermes-ledger-closed-');
    const ledger = await BatchLedger.open(dir, notDone, logger().log);
    ledger.close();
    expect(() => ledger.recordUpload('f', [])).toThrow(/closed/);
  });
});
