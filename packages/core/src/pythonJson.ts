// Upstream Hermes writes every JSON fragment inside a conversation (tool_call blocks, tool_response
// blocks, the system turn's tools list) with Python's `json.dumps(value, ensure_ascii=False)`. Records
// we produce must carry the same bytes, so training data mixes cleanly with upstream's.
//
// Differences we cannot reproduce, because a JS value has lost what Python still knew:
// - Floats with an integral value: Python writes `1.0`, but JSON.parse turns `1.0` into the number 1,
//   which we write as `1` (Python's int form).
// - Integers beyond 2**53 lose precision when parsed in JS; we write what JS holds. Integral values of
//   1e21 and above are written in Python's float form (`1e+21`), since JS cannot hold such an int exactly.
// - Key order: JS objects list integer-like keys ("1", "2") first, whatever order they arrived in;
//   Python keeps insertion order.
// - Lone surrogates: Python writes them raw (and then fails to encode the line as UTF-8); we escape
//   them as `\udxxx`, which keeps the line valid.

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

/** Python's int form for integral values, else `repr(float)`: fixed notation from 1e-4 up to 1e16, else `1.5e-05`. */
function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  const magnitude = Math.abs(value);
  if (Number.isInteger(value) && magnitude < 1e21) return String(value);
  if (magnitude >= 1e-4 && magnitude < 1e16) return String(value);
  // toExponential() with no argument gives the shortest round-trip digits, as Python's repr does;
  // Python writes the exponent with at least two digits.
  return value.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
}
