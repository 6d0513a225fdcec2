// Reading JSON fragments that are written again (tool-call arguments, tool results, the blocks of a
// ShareGPT turn) without changing a number. Upstream parses them with Python's json.loads and writes
// them with json.dumps, which keeps every integer's digits and every float's float-ness; JSON.parse
// does not (12345678901234567890 -> 12345678901234567000, 1.0 -> 1, -0.0 -> 0).
//
// A number whose Python form JS cannot reproduce from a plain number is read as a JsonNumber holding
// the digits received; pythonJsonDumps writes it as Python would. All other numbers stay plain, so
// code reading the values sees ordinary numbers.
//
// NaN, Infinity and -Infinity: Python's json.loads accepts these tokens and json.dumps writes them
// back unchanged, so we do the same (as JsonNumber), instead of treating the whole text as invalid.
// A float token too large for a double (1e400) becomes Infinity, as in Python.

/** A number token kept as received, because a JS number would change how it is written. */
export class JsonNumber {
  public constructor(
    /** The token as received, e.g. `12345678901234567890`, `1.0`, `-0.0`, `NaN`. */
    public readonly text: string,
  ) {}

  public valueOf(): number {
    return Number(this.text);
  }

  /** JSON.stringify has no way to write raw digits; it gets the nearest number (null for NaN). */
  public toJSON(): number {
    return this.valueOf();
  }
}

/** Python's json.dumps text of a number token (an int's digits, else `repr(float(token))`). */
export function pythonNumberToken(text: string): string {
  if (/^-?\d+$/.test(text)) return BigInt(text).toString();
  return pythonFloat(Number(text));
}

/** Python's `repr(float)` as json.dumps writes it: `1.0`, `-0.0`, `1e+16`, `1.5e-05`, `NaN`, `Infinity`. */
export function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    const text = Object.is(value, -0) ? '-0' : String(value);
    return Number.isInteger(value) ? `${text}.0` : text;
  }
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  // toExponential() with no argument gives the shortest round-trip digits, as Python's repr does;
  // Python writes the exponent with at least two digits.
  return value.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Python's json.dumps text for a plain JS number, taken as an int when integral (as JSON.parse left it). */
export function pythonNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  return pythonFloat(value);
}

// Any text that might hold a number JSON.parse would change: a value (after `:`, `,` or `[`, or the
// whole text) that starts like a float, a 16-digit int, NaN or Infinity. False alarms (the same in
// a string) only cost the exact scan below.
const MAYBE_LOSSY_VALUE = /[:,[][ \t\n\r]*(?:-?\d+[.eE]|-?\d{16}|NaN|-?Infinity)/;
const STARTS_AS_NUMBER = /^[ \t\n\r]*[-\dNI]/;
// Tokens of JSON text: a string, a number (or Python's NaN / Infinity), or one structural character.
// biome-ignore lint/suspicious/noControlCharactersInRegex: a JSON string must not hold a raw control character (RFC 8259 §7)
const TOKEN = /[ \t\n\r]*(?:("(?:[^"\\\n\r\u0000-\u001f]|\\.)*")|(-?(?:Infinity|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|NaN)|([{}[\]:,]|true|false|null))/y;

/**
 * JSON.parse for fragments that are written again: the same values, except that numbers JSON.parse
 * would change are JsonNumbers, and Python's NaN / Infinity / -Infinity are accepted. Throws a
 * SyntaxError for text that is not JSON.
 */
export function parseJsonLossless(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    if (/NaN|Infinity/.test(text)) return new LosslessParser(text).document();
    throw err;
  }
  // JSON.parse changes only numbers it made integral (1.0, -0.0, 1e5, a big int) or infinite (an int
  // too long for a double); text without such a value, or without a token that could have been one,
  // is read right already (the common case: this check costs a walk over the values, not a scan).
  if (!hasIntegralNumber(value)) return value;
  const maybe = MAYBE_LOSSY_VALUE.test(text) || STARTS_AS_NUMBER.test(text);
  return maybe && hasLossyNumber(text) ? new LosslessParser(text).document() : value;
}

/** An integral number, or Infinity: what JSON.parse makes of an integer of 309 digits or more. */
function hasIntegralNumber(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) || !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasIntegralNumber);
  for (const key in value) if (hasIntegralNumber((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** Whether a number token outside strings would be changed by JSON.parse (or is NaN / Infinity). */
function hasLossyNumber(text: string): boolean {
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const number = match[2];
    if (number !== undefined && isLossy(number)) return true;
  }
  return false;
}

/** NaN / Infinity tokens are not JSON at all; others are lossy when JS would write them differently. */
function isLossy(token: string): boolean {
  return token === 'NaN' || token.endsWith('Infinity') || pythonNumberToken(token) !== pythonNumber(Number(token));
}

class LosslessParser {
  private at = 0;

  public constructor(private readonly text: string) {}

  public document(): unknown {
    const value = this.value();
    if (!/^[ \t\n\r]*$/.test(this.text.slice(this.at))) this.fail('unexpected text after the JSON value');
    return value;
  }

  private token(): RegExpExecArray {
    TOKEN.lastIndex = this.at;
    const match = TOKEN.exec(this.text);
    if (match === null) this.fail(/^[ \t\n\r]*$/.test(this.text.slice(this.at)) ? 'unexpected end of JSON input' : 'unexpected token');
    this.at = TOKEN.lastIndex;
    return match;
  }

  private value(token = this.token()): unknown {
    const [, string, number, symbol] = token;
    if (string !== undefined) return JSON.parse(string) as string;
    if (number !== undefined) return isLossy(number) ? new JsonNumber(number) : Number(number);
    switch (symbol) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case 'true':
        return true;
      case 'false':
        return false;
      case 'null':
        return null;
      default:
        return this.fail(`unexpected "${symbol}"`);
    }
  }

  private object(): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    let token = this.token();
    if (token[3] === '}') return object;
    for (;;) {
      const key = token[1];
      if (key === undefined) this.fail('expected a property name');
      if (this.token()[3] !== ':') this.fail('expected ":" after a property name');
      // defineProperty: a "__proto__" key is data, as JSON.parse makes it, not the prototype.
      Object.defineProperty(object, JSON.parse(key) as string, { value: this.value(), enumerable: true, writable: true, configurable: true });
      const next = this.token()[3];
      if (next === '}') return object;
      if (next !== ',') this.fail('expected "," or "}" in an object');
      token = this.token();
    }
  }

  private array(): unknown[] {
    const array: unknown[] = [];
    let token = this.token();
    if (token[3] === ']') return array;
    for (;;) {
      array.push(this.value(token));
      const next = this.token()[3];
      if (next === ']') return array;
      if (next !== ',') this.fail('expected "," or "]" in an array');
      token = this.token();
    }
  }

  private fail(message: string): never {
    throw new SyntaxError(`${message} at position ${this.at}`);
  }
}
