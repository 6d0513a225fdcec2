// Token counting with tiktoken's ranks (the `tiktoken` npm package; nothing is downloaded), the way
// upstream Hermes counts: a text's count is its number of tokens, a conversation's the sum over turns.
//
// Why not one WASM encode per text: tiktoken costs about 0.1 ms a call plus ~1 MB/s of BPE on agent
// text (measured: 28.9 MB of trajectories in 13.6 s). Its encoder splits text with its pattern into
// pieces and encodes each piece alone, so a text's count is the sum of its pieces' counts. We split
// here and count each distinct piece once with tiktoken (a bounded cache): the same count, ten times
// faster. Under o200k's pattern a hand-written scanner splits the ASCII stretches (the regex was most
// of what was left); tests check both against tiktoken's own encode.
import { createRequire } from 'node:module';
import { loadHfTokenizer, type TokenizerOptions } from './hfTokenizer.js';
import { loadOptionFile, optionFileError, type OptionFile } from './optionFile.js';
import { isPlainObject } from './plainObject.js';

export const TOKEN_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];
export const DEFAULT_TOKEN_ENCODING: TokenEncoding = 'o200k_base';

export interface TokenCounter {
  /** The encoding's name, or the ranks file's path. */
  readonly name: string;
  /** Tokens of one text; 0 for the empty string. */
  count(text: string): number;
  /** Every token is at least one UTF-8 byte (byte-level BPE), so a text's byte length bounds its count. */
  readonly tokensWithinBytes: boolean;
}

/** tiktoken's encoder definition: the ranks (tiktoken's text format), its special tokens and pattern. */
export interface TiktokenDefinition {
  readonly bpe_ranks: string;
  readonly special_tokens: Record<string, number>;
  readonly pat_str: string;
}

interface TiktokenEncoder {
  encode_ordinary(text: string): Uint32Array;
}

const requireFromHere = createRequire(import.meta.url);

/** The definition shipped in the tiktoken package for a named encoding. */
export function builtinTiktokenDefinition(encoding: TokenEncoding): TiktokenDefinition {
  return requireFromHere(`tiktoken/encoders/${encoding}.json`) as TiktokenDefinition;
}

/**
 * A counter for a named encoding, or for a ranks file (`--tokenizer FILE`): either tiktoken's encoder
 * JSON ({bpe_ranks, special_tokens, pat_str}, as in tiktoken/encoders/) or a `.tiktoken` ranks file
 * (one `base64-token rank` a line), which is split with the named encoding's pattern.
 */
export function loadTokenCounter(options: { encoding?: TokenEncoding; ranks?: OptionFile } = {}): TokenCounter {
  const encoding = options.encoding ?? DEFAULT_TOKEN_ENCODING;
  if (!options.ranks)
    return new PieceCounter(
      encoding,
      tiktokenCount(() => builtinTiktokenDefinition(encoding)),
      builtinPattern(encoding),
      encoding === 'o200k_base',
    );
  const definition = readRanksFile(options.ranks, encoding);
  const pattern = jsPattern(definition.pat_str);
  return new PieceCounter(
    options.ranks.path,
    tiktokenCount(() => definition),
    pattern,
    definition.pat_str === builtinTiktokenDefinition('o200k_base').pat_str && pattern !== null,
  );
}

/** Token counts from tiktoken's encoder, loaded on the first text a cache has not seen. */
function tiktokenCount(definition: () => TiktokenDefinition): (text: string) => number {
  let encoder: TiktokenEncoder | undefined;
  return (text) => {
    encoder ??= loadEncoder(definition());
    return encoder.encode_ordinary(text).length;
  };
}

function readRanksFile(file: OptionFile, encoding: TokenEncoding): TiktokenDefinition {
  const text = loadOptionFile(file, 'text').replace(/^\uFEFF/, '');
  if (text.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw optionFileError(file, `not valid JSON: ${(err as Error).message}`);
    }
    if (!isPlainObject(parsed) || typeof parsed['bpe_ranks'] !== 'string' || typeof parsed['pat_str'] !== 'string') {
      throw optionFileError(file, 'expected tiktoken encoder JSON {"bpe_ranks": string, "pat_str": string, "special_tokens": {...}} or a .tiktoken ranks file');
    }
    const special = isPlainObject(parsed['special_tokens']) ? (parsed['special_tokens'] as Record<string, number>) : {};
    return { bpe_ranks: parsed['bpe_ranks'], pat_str: parsed['pat_str'], special_tokens: special };
  }
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    if (!/^[A-Za-z0-9+/]*={0,2} \d+\r?$/.test(line)) {
      throw optionFileError(file, 'expected a .tiktoken ranks file (each line: base64 token, a space, its rank) or tiktoken encoder JSON', { line: index + 1 });
    }
  }
  return { bpe_ranks: text, special_tokens: {}, pat_str: builtinTiktokenDefinition(encoding).pat_str };
}

/**
 * A counter in a Hugging Face tokenizer's tokens (--tokenizer DIR|PACKAGE): exactly its encode's count.
 * A byte-level BPE tokenizer (Qwen2/3's, Llama 3's and Hermes 3's, GPT-2's) encodes a text as: its added
 * tokens (<|im_start|>, <think>, ...) matched first, one token each; the text between them normalised and
 * split by the pre-tokenizer's pattern; each piece encoded alone. So a text's count is the sum over those
 * parts, and each distinct piece is encoded once (the cache), as for tiktoken's encodings. A tokenizer of
 * another shape is counted by encoding each text whole: exact too, only slower (its name says so).
 */
export async function loadHfTokenCounter(options: TokenizerOptions): Promise<TokenCounter> {
  const tokenizer = await loadHfTokenizer(options);
  const encode = (text: string): number => tokenizer.encode(text).length;
  const split = byteLevelSplit(tokenizer.json);
  if (!split) return { name: `${tokenizer.dir} (each text encoded whole)`, count: (text) => (text === '' ? 0 : encode(text)), tokensWithinBytes: false };
  const pieces = new PieceCounter(tokenizer.dir, encode, split.pattern, false);
  const between = (part: string): number => (part === '' ? 0 : pieces.count(split.nfc ? part.normalize('NFC') : part));
  return {
    name: tokenizer.dir,
    tokensWithinBytes: true,
    count: (text) => {
      if (split.added === null) return between(text);
      let n = 0;
      let last = 0;
      for (const match of text.matchAll(split.added)) {
        n += between(text.slice(last, match.index)) + 1;
        last = match.index + match[0].length;
      }
      return n + between(text.slice(last));
    },
  };
}

/** GPT-2's pre-tokenizer pattern: what ByteLevel with use_regex splits by. */
const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

interface ByteLevelSplit {
  /** The pre-tokenizer's pattern. */
  readonly pattern: RegExp;
  /** The added tokens, longest first; null when there are none. */
  readonly added: RegExp | null;
  /** The normalizer is NFC (else there is none). */
  readonly nfc: boolean;
}

/** How a tokenizer.json of the byte-level BPE shape splits text, or null for any other shape. */
function byteLevelSplit(json: Record<string, unknown>): ByteLevelSplit | null {
  const model = json['model'];
  if (!isPlainObject(model) || model['type'] !== 'BPE') return null;
  const normalizer = json['normalizer'];
  if (normalizer !== null && normalizer !== undefined && !(isPlainObject(normalizer) && normalizer['type'] === 'NFC')) return null;
  const patternText = byteLevelPattern(json['pre_tokenizer']);
  const pattern = patternText === null ? null : jsPattern(patternText);
  if (pattern === null) return null;
  const added = Array.isArray(json['added_tokens']) ? json['added_tokens'] : [];
  // Tokens that take spaces around them or match only whole words split text in ways a plain match does not.
  const plain = added.every(
    (token) =>
      isPlainObject(token) &&
      typeof token['content'] === 'string' &&
      token['content'] !== '' &&
      !token['lstrip'] &&
      !token['rstrip'] &&
      !token['single_word'] &&
      !token['normalized'],
  );
  if (!plain) return null;
  const contents = added.map((token) => (token as { content: string }).content).sort((a, b) => b.length - a.length);
  const escaped = contents.map((content) => content.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return { pattern, added: contents.length === 0 ? null : new RegExp(escaped.join('|'), 'g'), nfc: isPlainObject(normalizer) };
}

/** The pattern of a Split(Isolated) + ByteLevel(no regex) pre-tokenizer, or of ByteLevel with its own regex; null for others. */
function byteLevelPattern(pre: unknown): string | null {
  if (!isPlainObject(pre)) return null;
  if (pre['type'] === 'ByteLevel') return pre['use_regex'] !== false && !pre['add_prefix_space'] ? GPT2_PATTERN : null;
  const steps = pre['type'] === 'Sequence' && Array.isArray(pre['pretokenizers']) ? pre['pretokenizers'] : [];
  const [split, byteLevel] = steps as unknown[];
  if (steps.length !== 2 || !isPlainObject(split) || !isPlainObject(byteLevel)) return null;
  if (byteLevel['type'] !== 'ByteLevel' || byteLevel['use_regex'] !== false || byteLevel['add_prefix_space']) return null;
  const regex = isPlainObject(split['pattern']) ? split['pattern']['Regex'] : undefined;
  if (split['type'] !== 'Split' || split['behavior'] !== 'Isolated' || split['invert'] || typeof regex !== 'string') return null;
  return regex;
}

const patterns = new Map<TokenEncoding, RegExp | null>();
function builtinPattern(encoding: TokenEncoding): RegExp | null {
  if (!patterns.has(encoding)) patterns.set(encoding, jsPattern(builtinTiktokenDefinition(encoding).pat_str));
  return patterns.get(encoding) ?? null;
}

/**
 * tiktoken's pattern (Rust fancy-regex syntax) as a JS regex, or null when JS cannot express it or
 * would read it differently (then every text is encoded whole). Node 20 has no inline `(?i:...)`; the groups tiktoken uses hold only
 * ASCII letters, so each letter becomes a two-case class.
 */
export function jsPattern(patStr: string): RegExp | null {
  // Class intersection (`&&`, in Kimi's pattern) and POSIX classes compile in JS but mean something else.
  if (patStr.includes('&&') || patStr.includes('[[:')) return null;
  const source = patStr.replace(
    /\(\?i:([^()]*)\)/g,
    (_whole, body: string) => `(?:${body.replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`)})`,
  );
  try {
    return new RegExp(source, 'gu');
  } catch {
    return null;
  }
}

/** Distinct pieces remembered; past this the cache starts over, so memory stays bounded. */
const PIECE_CACHE_LIMIT = 200_000;

/** Counts a text as the sum of its pieces' counts (each piece encoded once, then cached); `encode` counts a piece or a whole text. */
class PieceCounter implements TokenCounter {
  public readonly tokensWithinBytes = true;
  private readonly cache = new Map<string, number>();
  private readonly shortCache = new ShortPieceTable();

  public constructor(
    public readonly name: string,
    private readonly encode: (text: string) => number,
    private readonly pattern: RegExp | null,
    asciiScanner: boolean,
  ) {
    this.sticky = asciiScanner && pattern ? new RegExp(pattern.source, 'uy') : null;
  }

  private readonly sticky: RegExp | null;

  public count(text: string): number {
    if (text === '') return 0;
    if (this.sticky) return countO200k(text, this, this.sticky);
    const pattern = this.pattern;
    if (!pattern) return this.encode(text);
    let n = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) n += this.piece(match[0]);
    return n;
  }

  /**
   * Tokens of a short ASCII piece at `start`: most pieces are, and keyed by their character codes they
   * are found without making a string.
   */
  public shortPiece(text: string, start: number, length: number): number {
    let n = this.shortCache.get(text, start, length);
    if (n === 0) {
      n = this.piece(text.slice(start, start + length));
      this.shortCache.set(n);
    }
    return n;
  }

  /** Tokens of one piece of the pattern's split. */
  public piece(piece: string): number {
    // Every byte-level BPE vocabulary has each byte as a token.
    if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
    let n = this.cache.get(piece);
    if (n === undefined) {
      n = this.encode(piece);
      if (this.cache.size >= PIECE_CACHE_LIMIT) this.cache.clear();
      this.cache.set(piece, n);
    }
    return n;
  }
}

/**
 * Token counts of ASCII pieces of up to SHORT_PIECE characters, in an open-addressing table of plain
 * integers: a piece is two int32 keys (its length and first four 7-bit codes; its other codes), so a
 * lookup makes no string and no heap number. Starts over when half full, so memory stays bounded.
 */
export class ShortPieceTable {
  private readonly heads: Int32Array;
  private readonly tails: Int32Array;
  /** 0 marks a free slot: a piece has at least one token. */
  private readonly counts: Int32Array;
  private size = 0;
  /** Where get() stopped: the piece's slot, or the free slot set() fills; and where its probe began. */
  private slot = 0;
  private first = 0;
  private head = 0;
  private tail = 0;

  /** 2^bits slots (the default, 19, is 6 MB). */
  public constructor(private readonly bits = 19) {
    this.heads = new Int32Array(1 << bits);
    this.tails = new Int32Array(1 << bits);
    this.counts = new Int32Array(1 << bits);
  }

  /** The piece's count, or 0 when not known (then set() records it). */
  public get(text: string, start: number, length: number): number {
    let head = length;
    let tail = 0;
    const split = start + Math.min(length, 4);
    for (let k = start; k < split; k++) head = (head << 7) | text.charCodeAt(k);
    for (let k = split; k < start + length; k++) tail = (tail << 7) | text.charCodeAt(k);
    const mask = (1 << this.bits) - 1;
    let slot = (Math.imul(head, 0x9e3779b1) ^ Math.imul(tail + 0x7f4a7c15, 0x85ebca77)) >>> (32 - this.bits);
    this.first = slot;
    for (;;) {
      const n = this.counts[slot] as number;
      if (n === 0 || (this.heads[slot] === head && this.tails[slot] === tail)) {
        this.slot = slot;
        this.head = head;
        this.tail = tail;
        return n;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** Records the count of the piece the last get() did not know. */
  public set(count: number): void {
    if (this.size >= 1 << (this.bits - 1)) {
      this.counts.fill(0);
      this.size = 0;
      this.slot = this.first;
    }
    this.heads[this.slot] = this.head;
    this.tails[this.slot] = this.tail;
    this.counts[this.slot] = count;
    this.size++;
  }
}

// tiktoken's WASM loads on the first piece the cache has not seen (~0.4 s), so a run that counts
// nothing, or a test, does not pay for it.
function loadEncoder(definition: TiktokenDefinition): TiktokenEncoder {
  const { Tiktoken } = requireFromHere('tiktoken/lite') as {
    Tiktoken: new (ranks: string, special: Record<string, number>, pattern: string) => TiktokenEncoder;
  };
  return new Tiktoken(definition.bpe_ranks, definition.special_tokens, definition.pat_str);
}

// Character classes of the ASCII scanner (o200k's pattern restricted to ASCII: \p{Lu} is A-Z,
// \p{Ll} a-z, \p{Lt}/\p{Lm}/\p{Lo}/\p{M} are empty, \p{N} is 0-9, \s is tab, LF, VT, FF, CR, space).
// Class 0 stands for a character the scanner must not decide on (non-ASCII, or past its limit).
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
const NEWLINE = 4;
const SPACE = 5; // whitespace other than CR/LF
const OTHER = 6; // neither letter, digit nor whitespace
const CLASS = new Uint8Array(128).map((_, c) => {
  if (c >= 65 && c <= 90) return UPPER;
  if (c >= 97 && c <= 122) return LOWER;
  if (c >= 48 && c <= 57) return DIGIT;
  if (c === 10 || c === 13) return NEWLINE;
  if (c === 9 || c === 11 || c === 12 || c === 32) return SPACE;
  return OTHER;
});
const APOSTROPHE = 39;
/** Pieces up to this many ASCII characters are cached by a number made of their length and codes (under 8 × 128^7 = 2^52: exact in a double). */
const SHORT_PIECE = 7;
const SLASH = 47;

function nextNonAscii(text: string, from: number): number {
  for (let i = from; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return i;
  return text.length;
}

/**
 * o200k_base's split, piece by piece: a hand-written scanner over ASCII stretches, the pattern
 * (sticky) for each piece that reaches a non-ASCII character. The pattern's alternatives:
 *   [^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
 *   | [^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]*(?i:…)?  | \p{N}{1,3}  | ' '?[^\s\p{L}\p{N}]+[\r\n/]*
 *   | \s*[\r\n]+  | \s+(?!\S)  | \s+
 * Both give the same pieces: the scanner only decides a piece when every character it read is ASCII.
 */
function countO200k(text: string, counter: PieceCounter, sticky: RegExp): number {
  const n = text.length;
  let wide = nextNonAscii(text, 0);
  let tokens = 0;
  let i = 0;
  while (i < n) {
    const end = i < wide ? asciiPieceEnd(text, i, wide) : -1;
    if (end > i) {
      const length = end - i;
      tokens += length === 1 ? 1 : length <= SHORT_PIECE ? counter.shortPiece(text, i, length) : counter.piece(text.slice(i, end));
      i = end;
      continue;
    }
    sticky.lastIndex = i;
    const piece = sticky.exec(text)?.[0] ?? text.slice(i, i + 1);
    tokens += counter.piece(piece);
    i += piece.length;
    if (i > wide) wide = nextNonAscii(text, i);
  }
  return tokens;
}

function classAt(text: string, limit: number, j: number): number {
  return j < limit ? (CLASS[text.charCodeAt(j)] as number) : 0;
}

/** The end of the piece starting at i, or -1 when deciding it needs a character at or past `limit`. */
function asciiPieceEnd(text: string, i: number, limit: number): number {
  const c = classAt(text, limit, i);
  // Alternatives 1 and 2: an optional leading char that is not CR/LF, letter or digit, then letters.
  let j = i + (c === SPACE || c === OTHER ? 1 : 0);
  if (classAt(text, limit, j) === UPPER || classAt(text, limit, j) === LOWER) {
    while (classAt(text, limit, j) === UPPER) j++;
    while (classAt(text, limit, j) === LOWER) j++;
    // A non-ASCII character right after the letters might be a letter too.
    return j < limit ? contraction(text, j, limit) : -1;
  }
  if (c === DIGIT) {
    let end = i + 1;
    while (end < i + 3 && classAt(text, limit, end) === DIGIT) end++;
    return end < limit ? end : -1;
  }
  // ' '?[^\s\p{L}\p{N}]+[\r\n/]*
  j = text.charCodeAt(i) === 32 ? i + 1 : i;
  if (classAt(text, limit, j) === OTHER) {
    while (classAt(text, limit, j) === OTHER) j++;
    while (classAt(text, limit, j) === NEWLINE || (j < limit && text.charCodeAt(j) === SLASH)) j++;
    return j < limit ? j : -1;
  }
  // Whitespace: up to the run's last CR/LF if it has one; else the run, less its last character when
  // a non-space follows and the run is longer than one. The character after the run decides.
  let runEnd = i;
  let lastNewline = -1;
  while (classAt(text, limit, runEnd) === SPACE || classAt(text, limit, runEnd) === NEWLINE) {
    if (classAt(text, limit, runEnd) === NEWLINE) lastNewline = runEnd;
    runEnd++;
  }
  if (runEnd === i) return -1;
  if (runEnd === text.length) return lastNewline >= 0 ? lastNewline + 1 : runEnd;
  if (runEnd >= limit) return -1;
  if (lastNewline >= 0) return lastNewline + 1;
  return runEnd - i === 1 ? runEnd : runEnd - 1;
}

/** The end of a word at `j`, taking a following 's 't 're 've 'm 'll 'd (any case). */
function contraction(text: string, j: number, limit: number): number {
  if (j + 1 >= limit || text.charCodeAt(j) !== APOSTROPHE) return j;
  const a = text.charCodeAt(j + 1) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return j + 2; // s t m d
  if (j + 2 < limit) {
    const b = text.charCodeAt(j + 2) | 0x20;
    if ((a === 0x72 || a === 0x76) && b === 0x65) return j + 3; // re ve
    if (a === 0x6c && b === 0x6c) return j + 3; // ll
  }
  return j;
}
