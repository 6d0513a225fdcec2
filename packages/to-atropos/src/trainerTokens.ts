// tokens and masks for a trainer (docs/atropos.md#output): tokens = the chat template's render of the
// whole chat, tokenized; an assistant message is trained over its own rendering in that one render,
// after the generation prompt that opens it (`<|im_start|>assistant\n`) and through its end of turn, and
// -100 is everywhere else. For a template that renders every prefix of the chat as a prefix of the
// whole, this is exactly Atropos's tokenize_for_trainer (spans from len(render(chat[:i],
// add_generation_prompt)) to len(render(chat[:i+1]))). Where a template renders an earlier message
// differently once later ones follow (Qwen3 drops an empty <think> and the reasoning before the last
// user query), those prefix renders are not prefixes of the tokens trained on, and the one render's
// spans are the right ones: where each message's text lies comes from the template's loop over the
// messages (messageRegions.ts), not from prefix renders.
import type { AtroposMessage } from './atropos.js';
import type { ChatTokenizer } from './chatTokenizer.js';

export type MaskMode = 'all-assistant' | 'last-assistant';

export const UNTRAINED = -100;

export interface TrainerTokens {
  tokens: number[];
  masks: number[];
}

export function trainerTokens(tokenizer: ChatTokenizer, messages: readonly AtroposMessage[], mode: MaskMode): TrainerTokens | { problem: string } {
  const trained = messages.flatMap((message, i) => (message.role === 'assistant' ? [i] : []));
  if (trained.length === 0) return { problem: 'the chat has no assistant message to train on' };
  const rendered = tokenizer.renderRegions(messages);
  if ('problem' in rendered) return rendered;
  const full = rendered.text;
  const dropped = droppedToolCall(messages, full);
  if (dropped !== undefined) {
    return { problem: `the chat template does not render the tool call ${dropped} (the tokens would lose it): render the raw turns (--render raw)` };
  }
  const prompt = tokenizer.generationPrompt(messages.slice(0, trained[0]));
  if (typeof prompt !== 'string') return prompt;
  const spans: [number, number][] = [];
  for (const i of mode === 'last-assistant' ? trained.slice(-1) : trained) {
    const region = rendered.regions[i];
    if (region === undefined)
      return { problem: `assistant message ${i + 1} is not rendered in the chat template's loop over the messages, so its span is unknown` };
    const [start, end] = region;
    if (!full.startsWith(prompt, start)) {
      return { problem: `assistant message ${i + 1} does not start with the chat template's generation prompt ${JSON.stringify(prompt)}` };
    }
    // The last message runs to the end of the render, as tokenize_for_trainer's last span does.
    spans.push([start + prompt.length, i === messages.length - 1 ? full.length : end]);
  }
  // Each boundary must also be a token boundary. The render is tokenized in pieces cut at the
  // boundaries, and must give exactly the whole render's tokens: then the tokens of a span are the
  // tokens of its text.
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
