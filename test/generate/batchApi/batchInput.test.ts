// The batch API's files: input lines in OpenAI's format, cut into batches within the request and byte
// limits, and output and error files read back per custom_id, bad lines named.
import { describe, expect, it } from 'vitest';
import { inputLine, readBatchOutput, splitBatches, type BatchRequest } from '@hermes-datagen/generate/internal/batchApi/batchInput.js';

const request = (customId: string, content = 'hi'): BatchRequest => ({ customId, body: { model: 'm', messages: [{ role: 'user', content }] } });

describe('inputLine', () => {
  it('is one JSON line of custom_id, method, url and body', () => {
    const line = inputLine(request('p1@t0'));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      custom_id: 'p1@t0',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    });
  });
});

describe('splitBatches', () => {
  it('keeps one batch while within both limits, in order', () => {
    const requests = ['a', 'b', 'c'].map((id) => request(id));
    const { chunks, oversized } = splitBatches(requests, { maxRequests: 10, maxBytes: 10_000 });
    expect(oversized).toEqual([]);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.requests).toEqual(requests);
    expect(chunks[0]!.text).toBe(requests.map(inputLine).join(''));
  });

  it('cuts at the request limit', () => {
    const requests = Array.from({ length: 7 }, (_, i) => request(`r${i}`));
    const { chunks } = splitBatches(requests, { maxRequests: 3, maxBytes: 1e9 });
    expect(chunks.map((chunk) => chunk.requests.length)).toEqual([3, 3, 1]);
    expect(chunks.flatMap((chunk) => chunk.requests)).toEqual(requests);
  });

  it('cuts at the byte limit, counting UTF-8 bytes, and never lets a file exceed it', () => {
    const requests = Array.from({ length: 9 }, (_, i) => request(`r${i}`, 'é'.repeat(40)));
    const size = Buffer.byteLength(inputLine(requests[0]!));
    const maxBytes = size * 2 + 1;
    const { chunks } = splitBatches(requests, { maxRequests: 100, maxBytes });
    expect(chunks.map((chunk) => chunk.requests.length)).toEqual([2, 2, 2, 2, 1]);
    for (const chunk of chunks) expect(Buffer.byteLength(chunk.text)).toBeLessThanOrEqual(maxBytes);
  });

  it('sets apart a request no file could hold, and sends the rest', () => {
    const small = request('small');
    const big = request('big', 'x'.repeat(500));
    const { chunks, oversized } = splitBatches([small, big, small], { maxRequests: 100, maxBytes: 300 });
    expect(oversized).toEqual([big]);
    expect(chunks.flatMap((chunk) => chunk.requests)).toEqual([small, small]);
  });

  it('makes no batch of no requests', () => {
    expect(splitBatches([], { maxRequests: 1, maxBytes: 1 })).toEqual({ chunks: [], oversized: [] });
  });
});

describe('readBatchOutput', () => {
  const completion = { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [] };

  it('reads replies, error lines and failed statuses by custom_id', () => {
    const text = [
      JSON.stringify({ id: 'r1', custom_id: 'a@t0', response: { status_code: 200, request_id: 'x', body: completion }, error: null }),
      JSON.stringify({ id: 'r2', custom_id: 'b@t0', response: null, error: { code: 'batch_expired', message: 'not done in time' } }),
      JSON.stringify({ id: 'r3', custom_id: 'c@t1', response: { status_code: 500, body: { error: { message: 'boom', code: 'server_error' } } }, error: null }),
      '',
    ].join('\n');
    expect(readBatchOutput(text)).toEqual({
      outcomes: [
        { customId: 'a@t0', ok: true, reply: completion },
        { customId: 'b@t0', ok: false, error: 'batch_expired: not done in time' },
        { customId: 'c@t1', ok: false, error: 'status 500, server_error: boom' },
      ],
      unreadable: [],
    });
  });

  it('names the lines it cannot read, a torn last one included, and reads the others', () => {
    const good = JSON.stringify({ custom_id: 'a@t0', response: { status_code: 200, body: completion } });
    const text = [good, '{"custom_id": 7}', 'not json', good.slice(0, 20)].join('\n');
    const read = readBatchOutput(text);
    expect(read.unreadable).toEqual([2, 3, 4]);
    expect(read.outcomes).toEqual([{ customId: 'a@t0', ok: true, reply: completion }]);
  });

  it('takes a 200 without a body object for a failure, not a reply', () => {
    const text = JSON.stringify({ custom_id: 'a@t0', response: { status_code: 200, body: 'text' } });
    expect(readBatchOutput(text).outcomes).toEqual([{ customId: 'a@t0', ok: false, error: 'status 200' }]);
  });
});
