// Upstream Hermes writes every JSON fragment inside a conversation (tool_call blocks, tool_response
// blocks, the system turn's tools list) with Python's `json.dumps(value, ensure_ascii=False)`. Records
// we produce must carry the same bytes, so training data mixes cleanly with upstream's.
//
// Numbers: a fragment read with parseJsonLossless keeps every number JSON.parse would change as a
// JsonNumber, written here as Python writes it (`12345678901234567890`, `1.0`, `-0.0`, `NaN`). A plain JS
// number is written in Python's int form when integral, since that is what JSON.parse made of an int.
//
// Differences we cannot reproduce, because a JS value has lost what Python still knew:
// - Key order: JS objects list integer-like keys ("1", "2") first, whatever order they arrived in;
//   Python keeps insertion order.
// - Lone surrogates: Python writes them raw (and then fails to encode the line as UTF-8); we escape
//   them as `\udxxx`, which keeps the line valid.
import { JsonNumber, pythonNumber, pythonNumberToken } from './losslessJson.js';

/** The text of Python's `json.dumps(value, ensure_ascii=False)` with its default separators. */
export function pythonJsonDumps(value: unknown): string {
  return dump(value, new Set<object>());
}

function dump(value: unknown, ancestors: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return pythonNumber(value);
    case 'bigint':
      return value.toString();
    // Python's escaping with ensure_ascii=False (\" \\ \n \r \t \b \f, \u00XX for other controls,
    // everything else raw) is exactly what JSON.stringify does for a string.
    case 'string':
      return JSON.stringify(value);
    case 'object':
      return dumpContainer(value, ancestors);
    default:
      throw new TypeError(`Object of type ${typeof value} is not JSON serializable`);
  }
}

function dumpContainer(value: object, ancestors: Set<object>): string {
  if (value instanceof JsonNumber) return pythonNumberToken(value.text);
  if (ancestors.has(value)) throw new TypeError('Circular reference detected');
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    // Like JSON.stringify: an array hole, undefined or function becomes null.
    text = `[${value.map((item: unknown) => (isAbsent(item) ? 'null' : dump(item, ancestors))).join(', ')}]`;
  } else {
    const entries = Object.entries(value).filter(([, item]) => !isAbsent(item));
    text = `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${dump(item, ancestors)}`).join(', ')}}`;
  }
  ancestors.delete(value);
  return text;
}

// Values JSON has no form for; JSON.stringify drops them from objects, and so do we, so that optional
// fields left undefined behave as if they were not there.
function isAbsent(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
