// The shapes hermes-to-atropos writes, as Atropos defines them (docs/atropos.md, at Atropos
// HEAD 296a0bc5). They are Atropos's formats, not this project's records, so they are declared here.
import type { OpenAIChatMessage, OpenAIToolSchema } from '@hermes-datagen/core';

/** An OpenAI-format chat message as Atropos's `messages` carry them (role and content always present). */
export interface AtroposMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

/** Per-sequence provenance in overrides[i]: namespaced so no trainer key (sft, temperature, ...) is hit. */
export interface SequenceProvenance {
  hermes_id: string;
  hermes_prompt_index: number;
  hermes_completed: boolean;
  hermes_partial: boolean;
  hermes_model: string;
  /** The reward rules that fired, with --reward-rules. */
  hermes_reward_rules?: string[];
}

/**
 * One group as Atropos's process mode writes it (a serialised ScoredDataGroup, without env_id, which
 * only a registered env adds when posting). inference_logprobs is never written: offline trajectories
 * have no sampling logprobs, and a made-up value corrupts the trainer's importance ratio.
 */
export interface ScoredDataGroup {
  tokens: number[][];
  masks: number[][];
  scores: number[];
  advantages: null;
  ref_logprobs: null;
  messages: AtroposMessage[][];
  generation_params: null;
  group_overrides: Record<string, unknown>;
  overrides: SequenceProvenance[];
  images: null;
  distill_token_ids: null;
  distill_logprobs: null;
}

/** atropos-sft-gen --save-messages output line. */
export interface SftLine {
  messages: AtroposMessage[];
  score: number;
}

/**
 * --emit chat: one selected trajectory as OpenAI chat messages with structured tool calls and the tools
 * offered (schemas/chat-line.schema.json), for SFT trainers beyond Atropos (TRL, axolotl, LLaMA-Factory).
 */
export interface ChatLine {
  id: string;
  messages: OpenAIChatMessage[];
  tools: OpenAIToolSchema[];
  score: number;
}

/** atropos-dpo-gen --save-messages output line. */
export interface DpoLine {
  pos: AtroposMessage[];
  score: number;
  neg: AtroposMessage[];
}
