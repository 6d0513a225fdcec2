// Splits text into the XML-like blocks Hermes conversations use (<think>, <tool_call>, ...) and the
// text between them. Model-written text is not well-formed XML, so the rules are forgiving:
// - only the exact `<tag>` / `</tag>` spellings count (no attributes, case-sensitive, as upstream writes);
// - a block ends at its matching close tag, counting nested opens of the same tag, so
//   `<think>a<think>b</think>c</think>` is one block whose inner text keeps the nested tags;
// - the inside of a block is opaque: other tags in it are not blocks of their own;
// - a close tag with no open tag is plain text;
// - an open tag that is never closed is reported as `unclosed`, and scanning goes on right after it,
//   so the caller chooses between "literal text" (a `<think>` mentioned in prose) and "truncated block".
//
// The text is read once, into its tag tokens (tagTokens); a reader that needs both the blocks and the
// raw markup (hermes-verify's strict scan) passes the same tokens to both, so a turn is scanned once.

export type TagSegment =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'block'; readonly tag: string; readonly inner: string }
  /** `rest` is everything after the open tag; the segments that follow cover the same text again. */
  | { readonly kind: 'unclosed'; readonly tag: string; readonly rest: string };

/** One `<tag>` or `</tag>` in a text. */
export interface TagToken {
  readonly tag: string;
  readonly closing: boolean;
  /** Where its `<` is. */
  readonly index: number;
}

const SLASH = 0x2f;
const GT = 0x3e;

/**
 * Every `<tag>` and `</tag>` of these tags in the text, in order. A token holds no `<` but its first
 * character, so no two overlap and one pass from `<` to `<` finds every one; the `>` after the name
 * makes the tag unique when one name begins another (think, thinking).
 */
export function tagTokens(text: string, tags: readonly string[]): TagToken[] {
  const tokens: TagToken[] = [];
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    const closing = text.charCodeAt(at + 1) === SLASH;
    const name = closing ? at + 2 : at + 1;
    for (const tag of tags) {
      if (text.charCodeAt(name + tag.length) === GT && text.startsWith(tag, name)) {
        tokens.push({ tag, closing, index: at });
        break;
      }
    }
  }
  return tokens;
}

/**
 * The blocks of `tags` and the text between them. `tokens` are the text's tagTokens for these tags
 * or more (tokens of other tags are ignored), when the caller has them already.
 */
export function splitTagBlocks(text: string, tags: readonly string[], tokens: readonly TagToken[] = tagTokens(text, tags)): TagSegment[] {
  const segments: TagSegment[] = [];
  let textStart = 0;
  for (let i = 0; i < tokens.length; i++) {
    const open = tokens[i] as TagToken;
    if (open.closing || !tags.includes(open.tag)) continue;
    if (open.index > textStart) segments.push({ kind: 'text', text: text.slice(textStart, open.index) });
    const innerStart = open.index + open.tag.length + 2;
    const close = matchingClose(tokens, i);
    if (close === -1) {
      segments.push({ kind: 'unclosed', tag: open.tag, rest: text.slice(innerStart) });
      textStart = innerStart;
      continue;
    }
    const closeIndex = (tokens[close] as TagToken).index;
    segments.push({ kind: 'block', tag: open.tag, inner: text.slice(innerStart, closeIndex) });
    textStart = closeIndex + open.tag.length + 3;
    i = close;
  }
  if (textStart < text.length) segments.push({ kind: 'text', text: text.slice(textStart) });
  return segments;
}

/** The position in `tokens` of the `</tag>` that closes the open tag at `open`, or -1. */
function matchingClose(tokens: readonly TagToken[], open: number): number {
  const { tag } = tokens[open] as TagToken;
  let depth = 1;
  for (let j = open + 1; j < tokens.length; j++) {
    const token = tokens[j] as TagToken;
    if (token.tag !== tag) continue;
    depth += token.closing ? -1 : 1;
    if (depth === 0) return j;
  }
  return -1;
}
