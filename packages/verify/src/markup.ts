// The tag markup of one turn value, read as a token sequence: a well-formed value is a series of
// `<tag>...</tag>` blocks with no tag token inside any block. Upstream inserts reasoning and tool
// output into these values without escaping, so a model that writes "</think>" or "<tool_call>" in
// its reasoning, or a tool whose output holds "</tool_response>", forges markup that every
// regex-based Hermes parser (vLLM's, Atropos') then reads as real blocks. core's splitTagBlocks is
// forgiving on purpose (it recovers the intended blocks); this scanner is strict on purpose (it
// reports every token that is not part of a clean block). Both read the same tagTokens, so a gpt turn is
// scanned once for its blocks and its markup (observed.ts).
import { tagTokens, type TagToken } from '@hermes-datagen/core';

export const MARKUP_TAGS = ['think', 'REASONING_SCRATCHPAD', 'tool_call', 'tool_response'] as const;
export type MarkupTag = (typeof MARKUP_TAGS)[number];

export interface MarkupScan {
  /** Tags of the clean blocks, in order. */
  readonly blocks: MarkupTag[];
  /** Where the first clean block opens, or -1 when there is none. */
  readonly firstBlockAt: number;
  /** One line per token that is not part of a clean block, or a block of a tag not allowed here. */
  readonly problems: MarkupProblem[];
}

export interface MarkupProblem {
  readonly kind: 'unclosed_tag' | 'forged_tag' | 'misplaced_block';
  readonly detail: string;
}

export function scanMarkup(value: string, allowed: ReadonlySet<MarkupTag>): MarkupScan {
  return scanMarkupTokens(tagTokens(value, MARKUP_TAGS), allowed);
}

/** The same scan of a value's tagTokens for MARKUP_TAGS. */
export function scanMarkupTokens(tokens: readonly TagToken[], allowed: ReadonlySet<MarkupTag>): MarkupScan {
  const blocks: MarkupTag[] = [];
  const problems: MarkupProblem[] = [];
  let firstBlockAt = -1;
  let open: { tag: MarkupTag; at: number } | null = null;
  for (const token of tokens) {
    const tag = token.tag as MarkupTag;
    if (open === null) {
      if (token.closing) problems.push({ kind: 'forged_tag', detail: `stray </${tag}> with no <${tag}> before it (at character ${token.index})` });
      else open = { tag, at: token.index };
      continue;
    }
    if (token.closing && tag === open.tag) {
      if (allowed.has(tag)) {
        if (firstBlockAt === -1) firstBlockAt = open.at;
        blocks.push(tag);
      } else {
        problems.push({ kind: 'misplaced_block', detail: `a <${tag}> block does not belong in this turn (at character ${open.at})` });
      }
      open = null;
      continue;
    }
    problems.push({
      kind: 'forged_tag',
      detail: `<${token.closing ? '/' : ''}${tag}> inside a <${open.tag}> block (at character ${token.index}): unescaped text that parsers read as markup`,
    });
  }
  if (open !== null) problems.push({ kind: 'unclosed_tag', detail: `<${open.tag}> at character ${open.at} is never closed` });
  return { blocks, firstBlockAt, problems };
}
