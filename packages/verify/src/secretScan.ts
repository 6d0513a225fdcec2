// No secret-looking strings in any record: the key formats of common providers (core's findSecrets)
// and, when the environment holds the run's key, that exact key in any of its forms. Findings name
// the pattern, the place and the length, never the secret: this report may be shared.
//
// A trajectory is scanned field by field rather than as its line: most of a line is the system turn
// (the fixed template and the offered tools' schemas), which a run repeats in every record, so each
// distinct system turn is scanned once. Other rows are scanned whole.
import { findSecrets, keyFingerprint, keyForms, mayHoldSecret, type Trajectory } from '@hermes-datagen/core';
import { Examples, plural, type CheckResult } from './checkResult.js';
import { at, type Observed, type StreamCheck } from './observed.js';

/** Variables that hold the run's key when hermes-generate ran in this environment. */
export const KEY_VARIABLES = ['HERMES_API_KEY', 'OPENAI_API_KEY'] as const;

/** Distinct system turns remembered as scanned (a run has a handful of toolset combinations). */
const SEEN_SYSTEM_TURNS = 256;

/**
 * The free-form fields of a trajectory as one text (the rest is numbers and tool names): metadata
 * values as JSON, strings as they are. A value read from JSON that is not an object or array is written
 * by String() exactly as by JSON.stringify (numbers are finite), without its cost.
 */
export function freeFormText(record: Trajectory): string {
  let text = `${record.id ?? ''} ${record.toolsets_used.join(' ')} `;
  let first = true;
  for (const value of Object.values(record.metadata)) {
    text += `${first ? '' : ' '}${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`;
    first = false;
  }
  return text;
}

/**
 * False when freeFormText(record) holds no key pattern, read field by field without writing it. Exact:
 * the patterns' prefixes hold no JSON punctuation and no character JSON escapes, and no escape sequence
 * spells one, so a prefix in a value's JSON is in one of its keys or strings; the only prefix with a
 * space (PRIVATE KEY) can also span two fields, so a field holding PRIVATE counts.
 */
export function freeFormMayHoldSecret(record: Trajectory): boolean {
  return mayHold(record.id ?? '') || record.toolsets_used.some(mayHold) || Object.values(record.metadata).some(valueMayHold);
}

const mayHold = (text: string): boolean => mayHoldSecret(text) || text.includes('PRIVATE');

/** Numbers, booleans and null are written without a letter of a prefix. */
function valueMayHold(value: unknown): boolean {
  if (typeof value === 'string') return mayHold(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(valueMayHold);
  return Object.entries(value).some(([key, inner]) => mayHold(key) || valueMayHold(inner));
}

/** Where a finding is: a turn's index, or the free-form fields. */
const FREE_FORM = -1;

interface KnownKey {
  readonly variable: string;
  readonly value: string;
  /** What a text holding the key holds (keyForms). */
  readonly forms: readonly string[];
}

export class SecretCheck implements StreamCheck {
  private records = 0;
  private readonly found = new Examples();
  private readonly byPattern = new Map<string, number>();
  private readonly keys: KnownKey[];
  private readonly seenSystem = new Map<number, string[]>();

  /** @param variables the environment variables whose values are the user's keys */
  public constructor(env: NodeJS.ProcessEnv, variables: readonly string[]) {
    this.keys = [...new Set(variables)]
      .map((variable) => ({ variable, value: (env[variable] ?? '').trim() }))
      .filter((key) => key.value.length >= 8)
      .map((key) => ({ ...key, forms: keyForms(key.value) }));
  }

  public observe(item: Observed): void {
    this.records += 1;
    const hits: string[] = [];
    if (item.kind === 'trajectory') {
      const { conversations } = item.record;
      for (let index = 0; index < conversations.length; index++) {
        const turn = conversations[index] as (typeof conversations)[number];
        if (turn.from === 'system' && this.scannedBefore(turn.value)) continue;
        this.scan(turn.value, index, hits);
      }
      if (this.keys.length > 0 || freeFormMayHoldSecret(item.record)) this.scan(freeFormText(item.record), FREE_FORM, hits);
    } else {
      this.scan(item.raw, 'the line', hits);
    }
    if (hits.length > 0) this.found.add(at(item.place, hits.join('; ')));
  }

  public result(): CheckResult {
    const patterns = [...this.byPattern].sort(([a], [b]) => a.localeCompare(b));
    const checked = this.keys.length > 0 ? ` (and the keys in ${this.keys.map((k) => `$${k.variable}`).join(', ')})` : '';
    return {
      id: 'secrets',
      title: 'no secret-looking strings (API key patterns) in any record',
      status: this.found.count === 0 ? 'PASS' : 'FAIL',
      summary:
        this.found.count === 0
          ? `no key patterns in ${plural(this.records, 'record')}${checked}`
          : `${this.found.count} of ${this.records} records hold secret-looking strings: ${patterns.map(([p, n]) => `${p} ${n}`).join(', ')}`,
      numbers: {
        records: this.records,
        records_with_secrets: this.found.count,
        by_pattern: Object.fromEntries(patterns),
        env_keys_checked: this.keys.map((k) => k.variable),
      },
      problems: this.found.list(),
    };
  }

  /** `where`: a turn's index, FREE_FORM, or a name; made into words only for a finding. */
  private scan(text: string, where: number | string, hits: string[]): void {
    const label = (): string => (typeof where === 'string' ? where : where === FREE_FORM ? 'id, toolsets_used or metadata' : `conversations[${where}]`);
    for (const key of this.keys) {
      if (key.forms.some((form) => text.includes(form)))
        hits.push(`${label()}: ${this.count(`the key in $${key.variable}`)} (fingerprint ${keyFingerprint(key.value)})`);
    }
    for (const match of findSecrets(text))
      hits.push(`${label()}: ${this.count(match.pattern)} "${match.prefix}…" (${match.length} characters, at character ${match.index})`);
  }

  private count(pattern: string): string {
    this.byPattern.set(pattern, (this.byPattern.get(pattern) ?? 0) + 1);
    return pattern;
  }

  /** True when this exact system turn was scanned already; remembers it otherwise. Keyed by length, compared whole. */
  private scannedBefore(value: string): boolean {
    const same = this.seenSystem.get(value.length);
    if (same?.includes(value)) return true;
    if (this.seenSystem.size >= SEEN_SYSTEM_TURNS) this.seenSystem.clear();
    this.seenSystem.set(value.length, [...(same ?? []), value]);
    return false;
  }
}
