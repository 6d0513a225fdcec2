// tokens and masks for a trainer, as Atropos's tokenize_for_trainer computes them (docs/atropos.md#output):
// tokens = the chat template's render of the whole chat; an assistant message i is
// trained over [len(render(chat[:i], add_generation_prompt)), len(render(chat[:i+1]))), its mask there
// being the token ids and -100 everywhere else. Upstream's own comment warns this is wrong for a
// template that renders a message differently once later messages follow (Qwen3's drops an empty
// <think> from earlier turns, date-stamped system prompts): so each boundary is checked here (the
// prefix renders must be prefixes of the whole render, and each boundary a token boundary), and a chat
// that fails is refused, never masked approximately.
import type { ChatTokenizer } from '@hermes-datagen/core';
import type { AtroposMessage } from './atropos.js';

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
  const trained = messages.flatMap((message, i) => (message.role === 'assistant' ? [i] : []));
  if (trained.length === 0) return { problem: 'the chat has no assistant message to train on' };
  const spans: [number, number][] = [];
  for (const i of mode === 'last-assistant' ? trained.slice(-1) : trained) {
    const start = tokenizer.render(messages.slice(0, i), true);
    const end = tokenizer.render(messages.slice(0, i + 1), false);
    for (const [text, what] of [
      [start, ' with the generation prompt'],
      [end, ''],
    ] as const) {
      if (!full.startsWith(text)) {
        return {
          problem:
            `assistant message ${i + 1}: the render of the first ${what === '' ? i + 1 : i} messages${what} is not a prefix of the whole chat's render ` +
            '(the chat template is not prefix-stable: it renders a message differently once later messages follow; --mask last-assistant or a prefix-stable --chat-template avoids it)',
        };
      }
    }
    spans.push([start.length, end.length]);
  }
  // Each boundary must also be a token boundary. The render is tokenized in pieces cut at the
  // boundaries, once, and must give exactly the whole render's tokens: then the tokens before a
  // boundary are those of the prefix render, without tokenizing every prefix again (which made long
  // chats quadratic).
  const cuts = [...new Set([0, ...spans.flat(), full.length])].sort((a, b) => a - b);
  const tokens: number[] = [];
  const tokenAt = new Map<number, number>();
  for (let c = 0; c < cuts.length - 1; c += 1) {
    tokenAt.set(cuts[c] as number, tokens.length);
    for (const id of tokenizer.encode(full.slice(cuts[c], cuts[c + 1]))) tokens.push(id);
  }
  tokenAt.set(full.length, tokens.length);
  const whole = tokenizer.encode(full);
  if (whole.length !== tokens.length || whole.some((id, k) => id !== tokens[k])) {
    return { problem: 'a token of the render crosses the start or end of an assistant message, so the message cannot be masked exactly' };
  }
  const masks = new Array<number>(tokens.length).fill(UNTRAINED);
  for (const [from, to] of spans) {
    for (let k = tokenAt.get(from) as number; k < (tokenAt.get(to) as number); k += 1) masks[k] = tokens[k] as number;
  }
  return { tokens, masks };
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
