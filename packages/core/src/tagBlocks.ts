// Splits text into the XML-like blocks Hermes conversations use (<think>, <tool_call>, ...) and the
// text between them. Model-written text is not well-formed XML, so the rules are forgiving:
// - only the exact `<tag>` / `</tag>` spellings count (no attributes, case-sensitive, as upstream writes);
// - a block ends at its matching close tag, counting nested opens of the same tag, so
//   `<think>a<think>b</think>c</think>` is one block whose inner text keeps the nested tags;
// - the inside of a block is opaque: other tags in it are not blocks of their own;
// - a close tag with no open tag is plain text;
// - an open tag that is never closed is reported as `unclosed`, and scanning goes on right after it,
//   so the caller chooses between "literal text" (a `<think>` mentioned in prose) and "truncated block".

export type TagSegment =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'block'; readonly tag: string; readonly inner: string }
  /** `rest` is everything after the open tag; the segments that follow cover the same text again. */
  | { readonly kind: 'unclosed'; readonly tag: string; readonly rest: string };

export function splitTagBlocks(text: string, tags: readonly string[]): TagSegment[] {
  const segments: TagSegment[] = [];
  let textStart = 0;
  let searchFrom = 0;
  for (;;) {
    const open = nextOpenTag(text, tags, searchFrom);
    if (!open) break;
    if (open.index > textStart) segments.push({ kind: 'text', text: text.slice(textStart, open.index) });
    const innerStart = open.index + open.tag.length + 2;
    const closeIndex = matchingClose(text, open.tag, innerStart);
    if (closeIndex === -1) {
      segments.push({ kind: 'unclosed', tag: open.tag, rest: text.slice(innerStart) });
      textStart = innerStart;
      searchFrom = innerStart;
      continue;
    }
    segments.push({ kind: 'block', tag: open.tag, inner: text.slice(innerStart, closeIndex) });
    textStart = closeIndex + open.tag.length + 3;
    searchFrom = textStart;
  }
  if (textStart < text.length) segments.push({ kind: 'text', text: text.slice(textStart) });
  return segments;
}

function nextOpenTag(text: string, tags: readonly string[], from: number): { tag: string; index: number } | undefined {
  let found: { tag: string; index: number } | undefined;
  for (const tag of tags) {
    const index = text.indexOf(`<${tag}>`, from);
    if (index !== -1 && (!found || index < found.index)) found = { tag, index };
  }
  return found;
}

/** The index of the `</tag>` that closes an open tag whose inner text starts at `from`, or -1. */
function matchingClose(text: string, tag: string, from: number): number {
  const openTag = `<${tag}>`;
  const closeTag = `</${tag}>`;
  let depth = 1;
  let position = from;
  for (;;) {
    const close = text.indexOf(closeTag, position);
    if (close === -1) return -1;
    const open = text.indexOf(openTag, position);
    if (open !== -1 && open < close) {
      depth += 1;
      position = open + openTag.length;
      continue;
    }
    depth -= 1;
    if (depth === 0) return close;
    position = close + closeTag.length;
  }
}
