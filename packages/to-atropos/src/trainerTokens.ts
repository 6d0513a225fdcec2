// tokens and masks for a trainer, as Atropos's tokenize_for_trainer computes them (atropos-format.md
// §1.4(2), §8.3): tokens = the chat template's render of the whole chat; an assistant message i is
// trained over [len(render(chat[:i], add_generation_prompt)), len(render(chat[:i+1]))), its mask there
// being the token ids and -100 everywhere else. Upstream's own comment warns this is wrong for a
// template that renders a message differently once later messages follow (Qwen3's drops an empty
// <think> from earlier turns, date-stamped system prompts): so each boundary is checked here, and a
// chat whose prefix renders do not tokenize to the first tokens of the whole is refused, never masked
// approximately.
import type { AtroposMessage } from './atropos.js';
import type { ChatTokenizer } from './chatTokenizer.js';

export type MaskMode = 'all-assistant' | 'last-assistant';

export const UNTRAINED = -100;

export interface TrainerTokens {
  tokens: number[];
  masks: number[];
}

export function trainerTokens(tokenizer: ChatTokenizer, messages: readonly AtroposMessage[], mode: MaskMode): TrainerTokens | { problem: string } {
  const full = tokenizer.render(messages, false);
  const dropped = droppedToolCall(messages, full);
  if (dropped !== undefined) {
    return { problem: `the chat template does not render the tool call ${dropped} (the tokens would lose it): render the raw turns (--render raw)` };
  }
  const tokens = tokenizer.encode(full);
  const masks = new Array<number>(tokens.length).fill(UNTRAINED);
  const trained = messages.flatMap((message, i) => (message.role === 'assistant' ? [i] : []));
  if (trained.length === 0) return { problem: 'the chat has no assistant message to train on' };
  for (const i of mode === 'last-assistant' ? trained.slice(-1) : trained) {
    const start = prefixLength(tokenizer, tokens, full, messages.slice(0, i), true);
    const end = prefixLength(tokenizer, tokens, full, messages.slice(0, i + 1), false);
    if (typeof start === 'string' || typeof end === 'string') {
      return { problem: `assistant message ${i + 1}: ${typeof start === 'string' ? start : end}` };
    }
    for (let k = start; k < end; k += 1) masks[k] = tokens[k] as number;
  }
  return { tokens, masks };
}

/** The token count of a prefix render, when it is a true prefix of the whole; else what differs. */
function prefixLength(
  tokenizer: ChatTokenizer,
  tokens: readonly number[],
  full: string,
  head: readonly AtroposMessage[],
  addGenerationPrompt: boolean,
): number | string {
  const text = tokenizer.render(head, addGenerationPrompt);
  const what = `the render of the first ${head.length} messages${addGenerationPrompt ? ' with the generation prompt' : ''}`;
  if (!full.startsWith(text)) {
    return `${what} is not a prefix of the whole chat's render (the chat template is not prefix-stable: it renders a message differently once later messages follow; --mask last-assistant or a prefix-stable --chat-template avoids it)`;
  }
  const ids = tokenizer.encode(text);
  if (ids.length > tokens.length || ids.some((id, k) => id !== tokens[k])) {
    return `${what} tokenizes differently from the start of the whole chat (a token crosses the boundary)`;
  }
  return ids.length;
}

/** A structured tool call the render does not contain (templates such as Hermes 3's ChatML print content only). */
function droppedToolCall(messages: readonly AtroposMessage[], full: string): string | undefined {
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      if (!full.includes(call.function.name) || !full.includes(call.function.arguments)) return `${call.function.name} ${call.function.arguments}`;
    }
  }
  return undefined;
}
