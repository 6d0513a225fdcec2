import { describe, expect, it } from 'vitest';
import { parseToolCallBlock, pythonJsonDumps } from '@hermes-datagen/core';
import { JsonNumber, parseJsonLossless, pythonFloat } from '@hermes-datagen/core/internal/losslessJson.js';

// Every expected text below is what Python 3 prints for json.dumps(json.loads(text), ensure_ascii=False).
describe('parseJsonLossless + pythonJsonDumps', () => {
  it.each<[string, string]>([
    ['{"id": 12345678901234567890}', '{"id": 12345678901234567890}'],
    ['[-98765432109876543210, 9007199254740993, 9007199254740992]', '[-98765432109876543210, 9007199254740993, 9007199254740992]'],
    ['[1.0, -0.0, -0, 0.0, 1e5, 1E5, 2.50, 1e16, 123.456e2]', '[1.0, -0.0, 0, 0.0, 100000.0, 100000.0, 2.5, 1e+16, 12345.6]'],
    ['[1.5e-5, 5e-324, 1e400, -1e400, 0.1]', '[1.5e-05, 5e-324, Infinity, -Infinity, 0.1]'],
    ['{"a":NaN,"b":Infinity,"c":-Infinity}', '{"a": NaN, "b": Infinity, "c": -Infinity}'],
    ['{"s":"1.0 and 12345678901234567890 in a string","n":1.0}', '{"s": "1.0 and 12345678901234567890 in a string", "n": 1.0}'],
    ['{"a":1.0,"b":2,"a":3.0}', '{"a": 3.0, "b": 2}'],
    ['{"__proto__": 2.0, "x": [ {} , [ ] ]}', '{"__proto__": 2.0, "x": [{}, []]}'],
    ['{"esc":"\\u00e9\\n\\"","v":1.0}', '{"esc": "é\\n\\"", "v": 1.0}'],
  ])('%s', (text, expected) => {
    expect(pythonJsonDumps(parseJsonLossless(text))).toBe(expected);
  });

  it('gives plain values where JSON.parse loses nothing, so readers see ordinary numbers', () => {
    expect(parseJsonLossless('{"a": 1, "b": 0.25, "c": -0, "d": "1.0"}')).toEqual({ a: 1, b: 0.25, c: -0, d: '1.0' });
    const value = parseJsonLossless('{"a": 1.0, "b": 3}') as { a: JsonNumber; b: number };
    expect(value.a).toBeInstanceOf(JsonNumber);
    expect(Number(value.a)).toBe(1);
    expect(value.b).toBe(3);
    expect(JSON.stringify(value)).toBe('{"a":1,"b":3}');
    expect(Object.getPrototypeOf(parseJsonLossless('{"__proto__": {"x": 1.0}}'))).toBe(Object.prototype);
  });

  it.each(['{"a": 1.0', '{"a": 1.0,}', '[1.0 2]', '{"a": 01.0}', '{"a": 1.0} x', '{a: 1.0}', '[NaN', '[Nan]', '"\\q" 1.0'])(
    'rejects %s as not JSON',
    (text) => {
      expect(() => parseJsonLossless(text)).toThrow(SyntaxError);
    },
  );

  it('keeps the numbers of a ShareGPT tool_call block read back (as hermes-to-atropos writes it again)', () => {
    const call = parseToolCallBlock('{"name": "t", "arguments": {"id": 12345678901234567890, "x": 1.0}}');
    expect(pythonJsonDumps(call.arguments)).toBe('{"id": 12345678901234567890, "x": 1.0}');
  });

  it.each<[number, string]>([
    [1, '1.0'],
    [-0, '-0.0'],
    [0, '0.0'],
    [1e16, '1e+16'],
    [9999999999999998, '9999999999999998.0'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1e22, '1e+22'],
  ])('pythonFloat(%s) is repr(float): %s', (value, expected) => {
    expect(pythonFloat(value)).toBe(expected);
  });
});
