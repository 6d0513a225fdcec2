// key_decision_extract: the deterministic summary of a region. One line per step, in order: the tool
// calls with compact arguments, each result's outcome (ok, or the error's first line), the decision a
// gpt turn states (its first sentence outside <think>), and any human instruction, quoted. Lines are
// dropped from the middle until the summary fits its token target. Every quoted text is escaped.
import { parseGptValue, parseToolValue, toolCallSucceeded, type TokenCounter, type Turn } from '@hermes-datagen/core';
import { escapeTags } from './escape.js';
import { MARKER_PREFIX } from './reducers.js';

export const SUMMARY_PREFIX = '[CONTEXT SUMMARY]:';
/** Upstream's fallback text (docs/compression.md#when-a-summary-fails), used by --strategy placeholder. */
export const PLACEHOLDER_SUMMARY = `${SUMMARY_PREFIX} [Summary generation failed - previous turns contained tool calls and responses that have been compressed to save context space.]`;

const ARG_CHARS = 80;
const QUOTE_CHARS = 240;

export function keyDecisionSummary(turns: readonly Turn[], start: number, counter: TokenCounter, targetTokens: number): string {
  const lines: string[] = [];
  for (let i = 0; i < turns.length; i++) lines.push(...stepLines(turns[i] as Turn, start + i));
  const header = `${SUMMARY_PREFIX} turns ${start}-${start + turns.length - 1} condensed by hermes-compress (key decisions, tool calls and outcomes):`;
  return fitLines(header, lines, counter, targetTokens);
}

function stepLines(turn: Turn, index: number): string[] {
  switch (turn.from) {
    case 'gpt': {
      const parsed = parseGptValue(turn.value);
      const lines: string[] = [];
      const decision = firstSentence(parsed.text);
      if (decision) lines.push(`- [${index}] assistant: ${quote(decision, QUOTE_CHARS)}`);
      for (const call of parsed.toolCalls) lines.push(`- [${index}] call ${call.name ?? '(malformed)'}(${compactArgs(call.arguments)})`);
      if (lines.length === 0 && parsed.think.some((t) => t !== '')) lines.push(`- [${index}] assistant: (thought only)`);
      return lines;
    }
    case 'tool': {
      const responses = parseToolValue(turn.value);
      if (responses.length === 0) return [`- [${index}] result: ${quote(turn.value, QUOTE_CHARS)}`];
      return responses.map((r) => `- [${index}] ${r.name ?? 'tool'} → ${outcome(r.content, r.error)}`);
    }
    case 'human':
      // An earlier summary: its lines (escaped already) carry over, so summaries do not nest as quotes.
      if (turn.value.startsWith(SUMMARY_PREFIX))
        return turn.value
          .split('\n')
          .slice(1)
          .filter((line) => line.startsWith('- '));
      return [`- [${index}] user: "${quote(turn.value, QUOTE_CHARS)}"`];
    default:
      return [`- [${index}] ${turn.from}: ${quote(turn.value, QUOTE_CHARS)}`];
  }
}

function outcome(content: unknown, malformed: string | undefined): string {
  if (malformed !== undefined) return 'unreadable result';
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  if (text.startsWith(MARKER_PREFIX)) return `ok (${quote(text.slice(MARKER_PREFIX.length).replace(/⟫$/, '').trim(), QUOTE_CHARS)})`;
  if (!toolCallSucceeded(content)) return `ERROR: ${quote(firstLine(errorText(content)), QUOTE_CHARS)}`;
  return `ok (${Array.from(text).length.toLocaleString('en-US')} chars)`;
}

/** The error message of a failed result: its "error" field when it has one, else the text. */
function errorText(content: unknown): string {
  let value = content;
  if (typeof content === 'string') {
    try {
      value = JSON.parse(content) as unknown;
    } catch {
      return content;
    }
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const error = record['error'] ?? (record['content'] as Record<string, unknown> | undefined)?.['error'];
    if (error !== undefined && error !== null) return typeof error === 'string' ? error : JSON.stringify(error);
  }
  return typeof content === 'string' ? content : JSON.stringify(content);
}

function compactArgs(args: unknown): string {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return quote(JSON.stringify(args) ?? '', ARG_CHARS);
  return Object.entries(args as Record<string, unknown>)
    .map(([k, v]) => `${k}=${quote(typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? 'null'), ARG_CHARS)}`)
    .join(', ');
}

function firstSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(trimmed);
  return firstLine(match ? match[0] : trimmed);
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.trim();
}

/** One line, at most `max` code points, tags escaped. */
function quote(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(oneLine);
  return escapeTags(chars.length > max ? `${chars.slice(0, max).join('')}…` : oneLine);
}

/**
 * Header and lines, with lines dropped from the middle (and counted) until the text fits `targetTokens`.
 * How many to keep is found on per-line counts (each line counted once), then checked on the text.
 */
function fitLines(header: string, lines: readonly string[], counter: TokenCounter, targetTokens: number): string {
  const render = (keep: number): string => {
    if (keep >= lines.length) return [header, ...lines].join('\n');
    const head = Math.ceil(keep / 2);
    const omitted = `- … ${lines.length - keep} more step lines omitted …`;
    return [header, ...lines.slice(0, head), omitted, ...lines.slice(lines.length - (keep - head))].join('\n');
  };
  const full = render(lines.length);
  if (counter.count(full) <= targetTokens) return full;
  const cost = lines.map((line) => counter.count(line) + 1);
  const prefix = [0];
  for (const c of cost) prefix.push((prefix.at(-1) as number) + c);
  const fixed = counter.count(header) + 16;
  const estimate = (keep: number): number => {
    const head = Math.ceil(keep / 2);
    return fixed + (prefix[head] as number) + (prefix[lines.length] as number) - (prefix[lines.length - (keep - head)] as number);
  };
  let keep = lines.length - 1;
  while (keep > 0 && estimate(keep) > targetTokens) keep--;
  let text = render(keep);
  while (keep > 0 && counter.count(text) > targetTokens) {
    keep = Math.max(0, keep - Math.max(1, Math.floor(keep / 20)));
    text = render(keep);
  }
  return text;
}
