// Shared by the hermes-compress tests: upstream's test stub counter (4 characters a token) and the
// default settings with overrides.
import type { TokenCounter } from '@hermes-datagen/core';
import { DEFAULTS, type CompressConfig } from '@hermes-datagen/compress/internal/config.js';

/** upstream tests' tokenizer stub: len(text) // 4 (code points). */
export const quarterCounter: TokenCounter = { name: 'len/4', count: (text) => Math.floor(codePoints(text) / 4) };

function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) n++; // a low surrogate completes a pair already counted
  }
  return n;
}

export function settings(overrides: Partial<CompressConfig> = {}): CompressConfig {
  return { ...DEFAULTS, ...overrides };
}

export const NEVER: AbortSignal = new AbortController().signal;
