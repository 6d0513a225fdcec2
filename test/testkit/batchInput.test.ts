import { describe, expect, it } from 'vitest';
import { checkBatchInput, OPENAI_BATCH_LIMITS } from '@hermes-datagen/testkit/internal/batchInput.js';

const ENDPOINT = '/v1/chat/completions';
const line = (customId: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: ENDPOINT, body: { model: 'm', messages: [] }, ...extra });
const check = (text: string, limits = OPENAI_BATCH_LIMITS) => checkBatchInput(Buffer.from(text), ENDPOINT, limits);

describe('checkBatchInput', () => {
  it('reads CRLF lines and a last line without its newline, keeping their order and numbers', () => {
    const checked = check(`${line('a')}\r\n${line('b')}\n${line('c')}`);
    expect(checked.errors).toEqual([]);
    expect(checked.requests.map((request) => [request.line, request.customId])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    expect(checked.requests[0]?.body).toEqual({ model: 'm', messages: [] });
  });

  it('takes a blank line in the middle for a line that is not JSON, and gives no requests when any line is bad', () => {
    const checked = check(`${line('a')}\n\n${line('b')}\n`);
    expect(checked.errors).toEqual([{ code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.', param: null, line: 2 }]);
    expect(checked.requests).toEqual([]);
  });

  it('names every bad line, a torn last line included, and counts every custom_id it read, duplicates too', () => {
    const checked = check(`${line('a')}\n${line('a')}\n${line('b', { custom_id: 7 })}\n${line('c').slice(0, 20)}`);
    expect(checked.errors.map((error) => [error.line, error.code, error.param])).toEqual([
      [2, 'duplicate_custom_id', 'custom_id'],
      [3, 'invalid_request', 'custom_id'],
      [4, 'invalid_json_line', null],
    ]);
    expect(checked.customIds).toEqual(['a', 'a']);
  });

  it('lists a hundred errors at most, however many lines are bad', () => {
    const checked = check('not json\n'.repeat(500));
    expect(checked.errors).toHaveLength(100);
    expect(checked.errors.at(-1)?.line).toBe(100);
  });

  it('checks the limits: bytes before anything else, then the number of requests', () => {
    const text = `${line('a')}\n${line('b')}\n`;
    expect(check(text, { maxRequests: 10, maxBytes: Buffer.byteLength(text) - 1 }).errors).toMatchObject([{ code: 'file_too_large', line: null }]);
    expect(check(text, { maxRequests: 1, maxBytes: 1000 }).errors).toMatchObject([{ code: 'request_limit_exceeded', line: null }]);
    expect(check(text, { maxRequests: 2, maxBytes: Buffer.byteLength(text) }).errors).toEqual([]);
  });
});
