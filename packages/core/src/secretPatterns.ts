// Secret-looking strings in text: the key formats of the common API providers and code hosts, so a
// check can say that a record carries a credential without knowing which one. A scan never returns
// the secret itself: only the pattern's name, where it starts and how long it is, and the pattern's
// fixed prefix (which every key of that kind shares).
//
// Prefixes that also begin ordinary words ("sk-learn", "hf_transfer", "Bearer of bad news") are
// only reported when the rest looks random: long enough and holding digits, as generated keys do
// (a random 32-character base62 string has fewer than 3 digits with probability below 1%).
//
// Speed: a check runs this over every byte of every record, so one regex of all the prefixes decides
// first whether any pattern can match (almost no text has any); only then do the patterns run.

export interface SecretPattern {
  readonly name: string;
  /** What every match starts with: safe to show. */
  readonly prefix: string;
  readonly regex: RegExp;
  /** Digits the match must hold to count (0: the pattern is specific enough by itself). */
  readonly minDigits: number;
}

export interface SecretMatch {
  /** The pattern's name, e.g. 'AWS access key id'. */
  readonly pattern: string;
  readonly prefix: string;
  /** UTF-16 offset of the match in the scanned text. */
  readonly index: number;
  readonly length: number;
}

// A key starts where no key character precedes it, so "task-..." never matches "sk-".
const START = '(?<![A-Za-z0-9_-])';

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { name: 'sk- key (OpenAI, Anthropic, OpenRouter style)', prefix: 'sk-', regex: new RegExp(`${START}sk-[A-Za-z0-9_-]{20,}`, 'g'), minDigits: 3 },
  { name: 'AWS access key id', prefix: 'AKIA', regex: new RegExp(`${START}(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])`, 'g'), minDigits: 0 },
  { name: 'GitHub token', prefix: 'gh', regex: new RegExp(`${START}(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})`, 'g'), minDigits: 0 },
  { name: 'GitLab token', prefix: 'glpat-', regex: new RegExp(`${START}glpat-[A-Za-z0-9_-]{20,}`, 'g'), minDigits: 0 },
  { name: 'Slack token', prefix: 'xox', regex: new RegExp(`${START}xox[abposr]-[A-Za-z0-9-]{10,}`, 'g'), minDigits: 3 },
  { name: 'Google API key', prefix: 'AIza', regex: new RegExp(`${START}AIza[0-9A-Za-z_-]{35}`, 'g'), minDigits: 0 },
  { name: 'Hugging Face token', prefix: 'hf_', regex: new RegExp(`${START}hf_[A-Za-z0-9]{30,}`, 'g'), minDigits: 3 },
  { name: 'Stripe live key', prefix: 'sk_live_', regex: new RegExp(`${START}[rs]k_live_[A-Za-z0-9]{20,}`, 'g'), minDigits: 0 },
  { name: 'private key block', prefix: '-----BEGIN', regex: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/g, minDigits: 0 },
  { name: 'bearer token', prefix: 'Bearer ', regex: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}/g, minDigits: 3 },
];

const ANY_PREFIX = /sk-|AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox|AIza|hf_|k_live_|PRIVATE KEY|Bearer/;

/** False when no pattern can match in `text` (findSecrets would find nothing): one pass of one regex. */
export function mayHoldSecret(text: string): boolean {
  return ANY_PREFIX.test(text);
}

/** Every secret-looking string in `text`, pattern by pattern, each in text order. */
export function findSecrets(text: string): SecretMatch[] {
  if (!mayHoldSecret(text)) return [];
  const found: SecretMatch[] = [];
  for (const pattern of SECRET_PATTERNS) {
    for (const match of text.matchAll(pattern.regex)) {
      if (digitCount(match[0]) >= pattern.minDigits) found.push({ pattern: pattern.name, prefix: pattern.prefix, index: match.index, length: match[0].length });
    }
  }
  return found;
}

function digitCount(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits += 1;
  }
  return digits;
}
