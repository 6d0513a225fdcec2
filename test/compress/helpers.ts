// Shared by the hermes-compress tests: upstream's test stub counter (4 characters a token), the
// default settings with overrides, and a long run of tool calls to compress.
import type { TokenCounter, Trajectory, Turn } from '@hermes-datagen/core';
import { DEFAULTS, type CompressConfig } from '@hermes-datagen/compress/internal/config.js';
import { gpt, human, system, tool, trajectory } from '../util/trajectories.js';

/** upstream tests' tokenizer stub: len(text) // 4 (code points). */
export const quarterCounter: TokenCounter = { name: 'len/4', count: (text) => Math.floor(codePoints(text) / 4), tokensWithinBytes: true };

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

/** A record of `steps` tool calls, each result about 2,500 characters; `marker` makes records differ. */
export function longRun(steps: number, marker = ''): Trajectory {
  const conversations: Turn[] = [system(), human(`Fix the build ${marker}`)];
  for (let i = 0; i < steps; i++) {
    conversations.push(gpt({ think: `Think ${i} ${marker}`, text: `Step ${i}.`, calls: [{ name: 'terminal', arguments: { command: `make s${i}` } }] }));
    conversations.push(tool({ name: 'terminal', content: `result ${i} ${marker} ${'words and more words '.repeat(120)}`, id: `c${i}` }));
  }
  conversations.push(gpt({ text: 'Done.' }));
  return trajectory({ conversations });
}
