// The token budget of one record: which target it must meet, and whether it is compressed at all.
import type { CompressConfig } from './config.js';

export type SkipReason = 'under_target' | 'ratio_under_min';

/**
 * The target for a conversation of `tokens` tokens. Hermes mode: target_max_tokens. Ratio mode:
 * min(max_tokens_after, max(min_tokens_after, ceil(ratio × tokens))), where max_tokens_after defaults to
 * target_max_tokens. A record forced by force_above_tokens must end at or under that threshold too.
 */
export function targetFor(tokens: number, config: CompressConfig): number {
  const cap = config.maxTokensAfter ?? config.targetMaxTokens;
  let target = cap;
  if (config.ratio !== undefined) target = Math.min(cap, Math.max(config.minTokensAfter ?? 0, Math.ceil(config.ratio * tokens)));
  if (isForced(tokens, config)) target = Math.min(target, config.forceAboveTokens as number);
  return target;
}

export function isForced(tokens: number, config: CompressConfig): boolean {
  return config.forceAboveTokens !== undefined && tokens > config.forceAboveTokens;
}

/**
 * Why a conversation of `tokens` tokens is passed through uncompressed, or null when it must be
 * compressed. under_target: it already fits. ratio_under_min (ratio mode): ratio × tokens is under
 * min_tokens_after, the requirements' "3,000 × 0.15 = 450 < 800: compression skipped". A record above
 * force_above_tokens is never skipped.
 */
export function skipReason(tokens: number, config: CompressConfig): SkipReason | null {
  if (isForced(tokens, config)) return null;
  if (tokens <= targetFor(tokens, config)) return 'under_target';
  if (config.ratio !== undefined && config.minTokensAfter !== undefined && Math.ceil(config.ratio * tokens) < config.minTokensAfter) return 'ratio_under_min';
  return null;
}

/**
 * The skip reason that holds for every conversation of at most `bound` tokens, so its turns need not
 * be tokenised; null when counting is needed. The bound used is the UTF-8 byte length, since a token
 * is at least one byte. Sound because the target never falls below its value for 0 tokens, ratio ×
 * tokens only grows with tokens, and nothing at or under the bound can be forced.
 */
export function certainSkip(bound: number, config: CompressConfig): SkipReason | null {
  if (config.forceAboveTokens !== undefined && bound > config.forceAboveTokens) return null;
  if (bound <= targetFor(0, config)) return 'under_target';
  return skipReason(bound, config) === 'ratio_under_min' ? 'ratio_under_min' : null;
}
