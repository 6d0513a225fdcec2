// Python's idea of whitespace, for every decision upstream makes with str.strip() / str.isspace()
// ("is this think block empty", "does this result start with Error:", the text around blocks), so
// counts and filter decisions agree with upstream on the same records. JavaScript's trim() differs:
// Python also strips U+001C..U+001F and U+0085 (NEL), and does not strip U+FEFF (BOM / ZWNBSP).

/** Python's `str.isspace()` for one UTF-16 code unit (every Python whitespace is in the BMP). */
export function isPythonSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code >= 0x1c;
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Python's `text.strip()`. */
export function pythonStrip(text: string): string {
  return text.slice(leadingSpace(text), text.length - trailingSpace(text));
}

/** Python's `text.lstrip()`. */
export function pythonStripStart(text: string): string {
  return text.slice(leadingSpace(text));
}

/** Python's `text.rstrip()`. */
export function pythonStripEnd(text: string): string {
  return text.slice(0, text.length - trailingSpace(text));
}

/** Python's `text.strip() == ""`: empty or only whitespace. */
export function isPythonBlank(text: string): boolean {
  return leadingSpace(text) === text.length;
}

/**
 * Python's `text.strip(chars)`, `lstrip(chars)` and `rstrip(chars)`: `chars` is a set of characters
 * (not a suffix or prefix), stripped from the chosen ends; undefined (Python's None) strips whitespace.
 * Characters are code points, as Python's are, so an astral character is one member of the set.
 */
export function pythonStripChars(text: string, chars: string | undefined, ends: 'both' | 'start' | 'end'): string {
  if (chars === undefined) return ends === 'both' ? pythonStrip(text) : ends === 'start' ? pythonStripStart(text) : pythonStripEnd(text);
  const set = new Set(chars);
  let start = 0;
  let end = text.length;
  if (ends !== 'end') {
    while (start < end) {
      const ch = String.fromCodePoint(text.codePointAt(start) as number);
      if (!set.has(ch)) break;
      start += ch.length;
    }
  }
  if (ends !== 'start') {
    while (end > start) {
      const low = text.charCodeAt(end - 1);
      const high = end - 2 >= start ? text.charCodeAt(end - 2) : 0;
      const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
      const ch = pair ? text.slice(end - 2, end) : text.charAt(end - 1);
      if (!set.has(ch)) break;
      end -= ch.length;
    }
  }
  return text.slice(start, end);
}

function leadingSpace(text: string): number {
  let i = 0;
  while (i < text.length && isPythonSpace(text.charCodeAt(i))) i++;
  return i;
}

function trailingSpace(text: string): number {
  let n = 0;
  while (n < text.length && isPythonSpace(text.charCodeAt(text.length - 1 - n))) n++;
  return n;
}
