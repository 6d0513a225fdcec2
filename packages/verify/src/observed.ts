// One input line as the checks see it: a trajectory (valid against its schema, its gpt turns parsed
// once for all checks), a tombstone, or an object that breaks the schema. Checks keep counts and ids
// from these, never the records.
import { checkSchema, parseGptValue, tagTokens, type ParsedGptValue, type Place, type TagToken, type Tombstone, type Trajectory } from '@hermes-datagen/core';
import type { CheckResult } from './checkResult.js';
import { MARKUP_TAGS } from './markup.js';

export interface GptTurn {
  /** The turn's index in `conversations`. */
  readonly index: number;
  readonly parsed: ParsedGptValue;
  /** Its tag tokens (MARKUP_TAGS), read once for both its blocks and the structure check's markup scan. */
  readonly tokens: readonly TagToken[];
}

interface Common {
  readonly place: Place;
  /** The line as read. */
  readonly raw: string;
}

/** A tool_stats entry with a count, success or failure; the others (all 0) are normalisation. */
export type UsedTool = readonly [name: string, stat: Trajectory['tool_stats'][string]];

export type Observed =
  | (Common & { readonly kind: 'trajectory'; readonly record: Trajectory; readonly gptTurns: readonly GptTurn[]; readonly usedTools: readonly UsedTool[] })
  | (Common & { readonly kind: 'tombstone'; readonly record: Tombstone })
  | (Common & { readonly kind: 'invalid'; readonly value: Record<string, unknown>; readonly problem: string });

/** A row with a `discarded` key is a tombstone (docs/record-format.md#tombstones); anything else should be a trajectory. */
export function observe(value: Record<string, unknown>, raw: string, place: Place): Observed {
  if ('discarded' in value) {
    const tombstone = checkSchema('tombstone', value);
    return 'problem' in tombstone
      ? { kind: 'invalid', value, problem: tombstone.problem, raw, place }
      : { kind: 'tombstone', record: tombstone.value, raw, place };
  }
  const checked = checkSchema('trajectory', value);
  if ('problem' in checked) return { kind: 'invalid', value, problem: checked.problem, raw, place };
  const record = checked.value;
  const gptTurns: GptTurn[] = [];
  record.conversations.forEach((turn, index) => {
    if (turn.from !== 'gpt') return;
    const tokens = tagTokens(turn.value, MARKUP_TAGS);
    gptTurns.push({ index, parsed: parseGptValue(turn.value, tokens), tokens });
  });
  // tool_stats names every tool of the registry (50-odd), used or not: read once for all the checks.
  const usedTools: UsedTool[] = [];
  for (const name in record.tool_stats) {
    const stat = record.tool_stats[name];
    if (stat !== undefined && (stat.count !== 0 || stat.success !== 0 || stat.failure !== 0)) usedTools.push([name, stat]);
  }
  return { kind: 'trajectory', record, gptTurns, usedTools, raw, place };
}

/**
 * The record that delegated this one, for a sub-agent's record (metadata.parent_id) or a failure line
 * of a sub-agent (parent_id): such rows belong to their prompt's chain, not to a dataset row of their own.
 */
export function parentOf(value: object): string | undefined {
  const fields = value as Record<string, unknown>;
  const metadata = fields['metadata'];
  const nested = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)['parent_id'] : undefined;
  const parent = nested ?? fields['parent_id'];
  return typeof parent === 'string' && parent !== '' ? parent : undefined;
}

/** What identifies a row of a run: its id, or for records without one (upstream's) its prompt index. */
export function rowKey(value: { id?: unknown; prompt_index?: unknown }): string | undefined {
  if (typeof value.id === 'string' && value.id !== '') return value.id;
  return Number.isInteger(value.prompt_index) ? `#${String(value.prompt_index)}` : undefined;
}

/** `file:line`, and where in the record when given. */
export function at(place: Place, where?: string): string {
  return `${place.source}:${place.line}${where === undefined ? '' : ` ${where}`}`;
}

/** A check over the records of the stream: sees each once, then reports. */
export interface StreamCheck {
  observe(item: Observed): void;
  result(): CheckResult;
}
