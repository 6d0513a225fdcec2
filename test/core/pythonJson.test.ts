import { describe, expect, it } from 'vitest';
import { pythonJsonDumps } from '@hermes-datagen/core';

// Every expected text below was produced by Python 3's json.dumps(value, ensure_ascii=False).
describe('pythonJsonDumps', () => {
  it.each<[string, unknown, string]>([
    ['null', null, 'null'],
    ['booleans', [true, false], '[true, false]'],
    ['empty containers', [[], {}], '[[], {}]'],
    ['separators ", " and ": "', { a: 1, b: [1, 2, { c: null }] }, '{"a": 1, "b": [1, 2, {"c": null}]}'],
    ['escapes only quotes, backslash and controls', 'line\nbreak\t"q" \\ \u0001 \u001f \u007f', '"line\\nbreak\\t\\"q\\" \\\\ \\u0001 \\u001f \u007f"'],
    ['\\b \\f \\r short forms', '\b\f\r', '"\\b\\f\\r"'],
    ['non-ASCII stays raw (ensure_ascii=False)', 'é 日本 😀 … \u2028', '"é 日本 😀 … \u2028"'],
    ['non-ASCII keys stay raw', { clé: 'v' }, '{"clé": "v"}'],
    ['integers', [0, -3, 42, 1e17], '[0, -3, 42, 100000000000000000]'],
    ['negative zero is the int 0', -0, '0'],
    ['fixed floats', [0.5, -2.5, 123456.789, 0.0001, 12345678901234.5], '[0.5, -2.5, 123456.789, 0.0001, 12345678901234.5]'],
    ['shortest round-trip digits', [1 / 3, 0.1 + 0.2], '[0.3333333333333333, 0.30000000000000004]'],
    ['small floats in exponent form with two exponent digits', [1.5e-5, 1e-7, -2.5e-10, 5e-324], '[1.5e-05, 1e-07, -2.5e-10, 5e-324]'],
    ['huge values in float form', [1e22, 1.7976931348623157e308], '[1e+22, 1.7976931348623157e+308]'],
    ['non-finite numbers as Python writes them', [NaN, Infinity, -Infinity], '[NaN, Infinity, -Infinity]'],
    ['bigint as an int', 12345678901234567890n, '12345678901234567890'],
    ['undefined properties dropped, undefined items null', { a: undefined, b: [undefined] }, '{"b": [null]}'],
    ['insertion order of keys', { z: 1, a: 2 }, '{"z": 1, "a": 2}'],
  ])('%s', (_name, value, expected) => {
    expect(pythonJsonDumps(value)).toBe(expected);
  });

  it('writes a value parsed from JSON back in Python form', () => {
    const text = '{"name": "terminal", "arguments": {"command": "echo \\"hé\\"\\n", "timeout": 30, "ratio": 0.25}}';
    expect(pythonJsonDumps(JSON.parse(text))).toBe(text);
  });

  it('refuses circular structures', () => {
    const loop: Record<string, unknown> = {};
    loop['self'] = loop;
    expect(() => pythonJsonDumps(loop)).toThrow(/Circular reference/);
  });

  it('writes a shared (not circular) object twice', () => {
    const shared = { x: 1 };
    expect(pythonJsonDumps([shared, shared])).toBe('[{"x": 1}, {"x": 1}]');
  });

  it('refuses a top-level value JSON has no form for', () => {
    expect(() => pythonJsonDumps(undefined)).toThrow(/not JSON serializable/);
  });
});
