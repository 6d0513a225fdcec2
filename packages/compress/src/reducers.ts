// Stage A: deterministic reducers over the compressible window (the requirements' drop_fields). They
// change turn values only, never the sequence of turns, so every call keeps its result. Each works
// oldest turn first and stops as soon as the record fits; protected turns are outside the window and
// tool results that carry an error are left alone (error_context).
import {
  parseGptValue,
  parseToolValue,
  pythonJsonDumps,
  splitTagBlocks,
  THINK_TAG,
  TOOL_CALL_TAG,
  toolCallSucceeded,
  type ParsedToolResponse,
} from '@hermes-datagen/core';
import type { CompressConfig, Reducer } from './config.js';
import type { Draft } from './draft.js';
import { escapeTags } from './escape.js';
import type { Window } from './window.js';

/** Starts every text hermes-compress puts in place of a tool result; never cut or stubbed again. */
export const MARKER_PREFIX = '⟪hermes-compress:';

export interface ReduceContext {
  readonly draft: Draft;
  readonly window: Window;
  readonly config: Pick<CompressConfig, 'dedupWindow' | 'toolOutputMaxTokens' | 'protectErrors'>;
  readonly fits: () => boolean;
}

/** Runs the enabled reducers in the order dedup → truncate → thoughts; returns those that changed something. */
export function runReducers(ctx: ReduceContext, enabled: readonly Reducer[]): Reducer[] {
  const used: Reducer[] = [];
  for (const reducer of ['repeated_observations', 'redundant_tool_outputs', 'intermediate_thoughts'] as const) {
    if (ctx.fits()) break;
    if (!enabled.includes(reducer)) continue;
    if (REDUCE[reducer](ctx)) used.push(reducer);
  }
  return used;
}

const REDUCE: Record<Reducer, (ctx: ReduceContext) => boolean> = {
  repeated_observations: dedupObservations,
  redundant_tool_outputs: truncateToolOutputs,
  intermediate_thoughts: emptyThoughts,
};

/**
 * True when a reduced value still reads as the same blocks: the same tool calls (byte for byte), the
 * same number of think blocks and results. Model text can quote tags (a literal <tool_call> inside a
 * thought), and block matching counts nested tags across the whole value, so removing or cutting text
 * could change how the rest of the turn reads; such a turn is left as it is.
 */
function sameShape(from: string, before: string, after: string): boolean {
  if (from === 'tool') return parseToolValue(after).length === parseToolValue(before).length;
  const a = parseGptValue(before);
  const b = parseGptValue(after);
  return a.think.length === b.think.length && a.toolCalls.length === b.toolCalls.length && a.toolCalls.every((call, i) => call.raw === b.toolCalls[i]?.raw);
}

/** Replaces a window turn's value when that keeps its shape and saves tokens. */
function reduce(draft: Draft, index: number, value: string): boolean {
  const turn = draft.turns[index];
  return turn !== undefined && sameShape(turn.from, turn.value, value) && draft.shrink(index, value);
}

/** Readable results of a tool turn, or null when one is malformed, failed (and errors are kept) or ours. */
function plainResults(value: string, keepErrors: boolean): ParsedToolResponse[] | null {
  if (value.includes(MARKER_PREFIX)) return null;
  const responses = parseToolValue(value);
  if (responses.length === 0 || responses.some((r) => r.error !== undefined)) return null;
  if (keepErrors && responses.some((r) => !toolCallSucceeded(r.content))) return null;
  return responses;
}

/** Upstream's block layout, one `<tool_response>` per result. */
function toolValue(responses: readonly { tool_call_id: string | null; name: string | null; content: unknown }[]): string {
  return responses
    .map(
      (r) =>
        `<tool_response>\n${pythonJsonDumps(r.tool_call_id === null ? { name: r.name, content: r.content } : { tool_call_id: r.tool_call_id, name: r.name, content: r.content })}\n</tool_response>`,
    )
    .join('\n');
}

function normalised(responses: readonly ParsedToolResponse[]): string {
  return JSON.stringify(responses.map((r) => [r.name, typeof r.content === 'string' ? r.content.replace(/\s+/g, ' ').trim() : JSON.stringify(r.content)]));
}

/**
 * repeated_observations: a tool turn whose results equal (names and contents, whitespace-normalised,
 * call ids ignored) those of one of the previous --dedup-window tool turns becomes a short reference
 * to it, in the same envelope (so each call keeps its result, id and name).
 */
function dedupObservations({ draft, window, config, fits }: ReduceContext): boolean {
  const recent: { index: number; key: string }[] = [];
  let changed = false;
  for (let i = 0; i < window.end; i++) {
    const turn = draft.turns[i];
    if (turn?.from !== 'tool') continue;
    const responses = parseToolValue(turn.value);
    if (responses.length === 0 || responses.some((r) => r.error !== undefined)) continue;
    const key = normalised(responses);
    const same = recent.find((r) => r.key === key);
    if (i >= window.start && same && plainResults(turn.value, config.protectErrors)) {
      const stub = toolValue(responses.map((r) => ({ ...r, content: `${MARKER_PREFIX} same result as turn ${same.index}⟫` })));
      if (reduce(draft, i, stub)) changed = true;
      if (fits()) return changed;
    }
    recent.unshift({ index: i, key });
    if (recent.length > config.dedupWindow) recent.pop();
  }
  return changed;
}

/**
 * redundant_tool_outputs: a tool turn over --tool-output-max-tokens keeps the head and tail of each
 * result's content (two thirds / one third) around a marker that counts what was cut. Cut text is
 * escaped, since a cut can separate a quoted tag from its partner.
 */
function truncateToolOutputs({ draft, window, config, fits }: ReduceContext): boolean {
  let changed = false;
  const max = config.toolOutputMaxTokens;
  for (let i = window.start; i < window.end; i++) {
    const turn = draft.turns[i];
    if (turn?.from !== 'tool' || (draft.tokens[i] as number) <= max) continue;
    const responses = plainResults(turn.value, config.protectErrors);
    if (!responses) continue;
    // Shrink by the share the turn is over, a little more each try: token density varies along a text.
    const tokens = draft.tokens[i] as number;
    for (let attempt = 1; attempt <= 5 && (draft.tokens[i] as number) > max; attempt++) {
      const share = (max / tokens) * (1 - 0.1 * attempt);
      const cut = responses.map((r) => ({ ...r, content: cutMiddle(typeof r.content === 'string' ? r.content : pythonJsonDumps(r.content), share) }));
      if (reduce(draft, i, toolValue(cut))) changed = true;
    }
    if (fits()) return changed;
  }
  return changed;
}

/** The text's head and tail, together about `share` of its length, around a counted marker. */
export function cutMiddle(text: string, share: number): string {
  const chars = Array.from(text);
  const keep = Math.max(0, Math.floor(chars.length * share));
  if (keep >= chars.length) return text;
  const head = Math.ceil((keep * 2) / 3);
  const tail = keep - head;
  const omitted = chars.length - keep;
  const marker = `\n${MARKER_PREFIX} ${omitted.toLocaleString('en-US')} of ${chars.length.toLocaleString('en-US')} characters omitted⟫\n`;
  return escapeTags(chars.slice(0, head).join('')) + marker + escapeTags(tail > 0 ? chars.slice(chars.length - tail).join('') : '');
}

/** intermediate_thoughts: the <think> bodies of window gpt turns emptied; the empty block stays. */
function emptyThoughts({ draft, window, fits }: ReduceContext): boolean {
  let changed = false;
  for (let i = window.start; i < window.end; i++) {
    const turn = draft.turns[i];
    if (turn?.from !== 'gpt' || !turn.value.includes('<think>')) continue;
    if (reduce(draft, i, withEmptyThoughts(turn.value))) changed = true;
    if (fits()) return changed;
  }
  return changed;
}

/** The value with each <think> block's body removed, everything else byte for byte. */
export function withEmptyThoughts(value: string): string {
  let out = '';
  for (const segment of splitTagBlocks(value, [THINK_TAG, TOOL_CALL_TAG])) {
    if (segment.kind === 'text') out += segment.text;
    else if (segment.kind === 'unclosed') out += `<${segment.tag}>`;
    else if (segment.tag === THINK_TAG) out += '<think>\n</think>';
    else out += `<${segment.tag}>${segment.inner}</${segment.tag}>`;
  }
  return out;
}
