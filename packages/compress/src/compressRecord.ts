// One record's conversation through the pipeline: budget → window → Stage A reducers → Stage B region
// replacement → checks. Returns what to emit and why; never changes the input turns.
import type { TokenCounter, Turn } from '@hermes-datagen/core';
import { certainSkip, isForced, skipReason, targetFor } from './budget.js';
import type { CompressConfig, Strategy } from './config.js';
import { Draft } from './draft.js';
import { keyDecisionSummary, PLACEHOLDER_SUMMARY } from './extract.js';
import type { MetricsInput } from './metrics.js';
import { runReducers } from './reducers.js';
import type { Summarizer } from './summarizer.js';
import { compressibleWindow, snapBoundary } from './window.js';

export const MIN_TOKENS_AFTER_MESSAGE = 'compressed trace too short, min_tokens_after not satisfied';

export type Status = 'compressed' | 'skipped' | 'unchanged' | 'error';
export type Reason =
  | 'under_target'
  | 'ratio_under_min'
  | 'already_compressed'
  | 'fits'
  | 'over_limit'
  | 'over_limit_forced'
  | 'no_window'
  | 'no_net_savings'
  | 'min_tokens_after'
  | 'llm_failed_fallback'
  | 'llm_no_savings_fallback'
  | 'timeout'
  | 'interrupted';

export interface Outcome {
  readonly status: Status;
  readonly reason: Reason;
  /** How the result was made: prune (Stage A only) or the Stage B strategy used; null when nothing was done. */
  readonly strategy: Strategy | 'prune' | null;
  readonly target: number | null;
  /** The new conversation, when status is compressed. */
  readonly conversations?: Turn[];
  /** Token counts; null when the byte bound made counting unnecessary. */
  readonly tokensBefore: number | null;
  readonly tokensAfter: number | null;
  /** Present when the record's tokens were counted (what the aggregate and compression_metrics use). */
  readonly metrics?: MetricsInput;
  readonly message?: string;
}

export interface CompressEnv {
  readonly config: CompressConfig;
  readonly counter: TokenCounter;
  readonly summarizer?: Summarizer;
}

function utf8Bytes(turns: readonly Turn[]): number {
  let bytes = 0;
  for (const turn of turns) bytes += Buffer.byteLength(turn.value, 'utf8');
  return bytes;
}

/**
 * `originalTokens`: the token count before an earlier hermes-compress run (its metadata), so that
 * ratio mode measures against the original trajectory and a compressed record that fits is left alone.
 */
export async function compressConversation(turns: readonly Turn[], env: CompressEnv, signal: AbortSignal, originalTokens?: number): Promise<Outcome> {
  const { config, counter } = env;
  // The byte length bounds the tokens only when no token is shorter than a byte.
  if (originalTokens === undefined && counter.tokensWithinBytes) {
    const certain = certainSkip(utf8Bytes(turns), config);
    if (certain) return { status: 'skipped', reason: certain, strategy: null, target: null, tokensBefore: null, tokensAfter: null };
  }
  const draft = Draft.of(turns, counter);
  const n = draft.total;
  const base = originalTokens ?? n;
  const target = targetFor(base, config);
  const metrics = (m: Partial<MetricsInput>): MetricsInput => ({
    originalTokens: n,
    compressedTokens: n,
    originalTurns: turns.length,
    compressedTurns: turns.length,
    region: undefined,
    wasCompressed: false,
    stillOverLimit: false,
    skippedUnderTarget: false,
    apiCalls: 0,
    apiErrors: 0,
    ...m,
  });
  const skip = originalTokens === undefined ? skipReason(n, config) : n <= target ? 'under_target' : null;
  if (skip) return { status: 'skipped', reason: skip, strategy: null, target, tokensBefore: n, tokensAfter: n, metrics: metrics({ skippedUnderTarget: true }) };
  const unchanged = (reason: Reason, extra: Partial<MetricsInput> = {}): Outcome => ({
    status: 'unchanged',
    reason,
    strategy: null,
    target,
    tokensBefore: n,
    tokensAfter: n,
    metrics: metrics({ stillOverLimit: true, ...extra }),
  });

  const window = compressibleWindow(turns, config);
  if (window.start >= window.end) return unchanged('no_window');
  // The notice goes once onto each system turn of the head (not again onto one an earlier run marked).
  const noticed = (turn: Turn): boolean => turn.from === 'system' && !turn.value.endsWith(config.noticeText);
  const systemsInHead = turns.slice(0, window.start).filter(noticed).length;
  const noticeTokens = config.addNotice ? systemsInHead * counter.count(config.noticeText) : 0;
  const fits = (): boolean => draft.total + noticeTokens <= target;

  runReducers({ draft, window, config, fits }, config.reducers);
  let strategy: Strategy | 'prune' = 'prune';
  let reason: Reason = 'fits';
  let region: { start: number; end: number } | undefined;
  let apiCalls = 0;
  let apiErrors = 0;
  let output = draft.turns;
  let outputTokens = draft.total;

  if (!fits()) {
    const planned = planRegion(draft, window, target, noticeTokens, config);
    if (planned) {
      const regionTurns = draft.turns.slice(planned.start, planned.end);
      const regionTokens = draft.tokens.slice(planned.start, planned.end).reduce((a, b) => a + b, 0);
      const made = await summarise(regionTurns, planned.start, regionTokens, env, signal);
      apiCalls = made.calls;
      apiErrors = made.errors;
      const summaryTokens = counter.count(made.summary);
      // Net-savings guard: a summary no smaller than what it replaces is not used.
      if (summaryTokens < regionTokens) {
        region = planned;
        strategy = made.strategy;
        if (made.fellBack) reason = made.fellBack;
        output = [...draft.turns.slice(0, planned.start), { from: 'human', value: made.summary }, ...draft.turns.slice(planned.end)];
        outputTokens = draft.total - regionTokens + summaryTokens;
      }
    }
  }
  if (config.addNotice) {
    // Counted again whole: the notice's tokens depend on where the system text ends.
    output = output.map((turn, i) => {
      if (i >= window.start || !noticed(turn)) return turn;
      const value = turn.value + config.noticeText;
      outputTokens += counter.count(value) - counter.count(turn.value);
      return { ...turn, value };
    });
  }
  if (outputTokens >= n) return unchanged('no_net_savings', { apiCalls, apiErrors });
  const compressedTurns = output.length;
  const stillOver = outputTokens > target;
  if (config.minTokensAfter !== undefined && outputTokens < config.minTokensAfter) {
    return {
      status: 'error',
      reason: 'min_tokens_after',
      strategy,
      target,
      tokensBefore: n,
      tokensAfter: n,
      message: MIN_TOKENS_AFTER_MESSAGE,
      metrics: metrics({ stillOverLimit: n > target, apiCalls, apiErrors }),
    };
  }
  if (stillOver && reason === 'fits') reason = isForced(base, config) ? 'over_limit_forced' : 'over_limit';
  return {
    status: 'compressed',
    reason,
    strategy,
    target,
    conversations: output,
    tokensBefore: n,
    tokensAfter: outputTokens,
    metrics: metrics({ compressedTokens: outputTokens, compressedTurns, region, wasCompressed: true, stillOverLimit: stillOver, apiCalls, apiErrors }),
  };
}

/**
 * Upstream's planner (docs/compression.md#planning-the-region) on the reduced turns: the oldest window turns, only as many as
 * the target needs (with the summary's planned size and the notice counted), the end snapped off tool
 * turns. With min_tokens_after, the region stops growing before the estimate would fall below it.
 */
function planRegion(
  draft: Draft,
  window: { start: number; end: number },
  target: number,
  noticeTokens: number,
  config: CompressConfig,
): { start: number; end: number } | undefined {
  const summary = config.summaryTargetTokens;
  const after = draft.total + noticeTokens;
  const need = after - target + summary;
  let acc = 0;
  let until = window.start;
  for (let i = window.start; i < window.end; i++) {
    const next = acc + (draft.tokens[i] as number);
    if (config.minTokensAfter !== undefined && after - next + summary < config.minTokensAfter) break;
    acc = next;
    until = i + 1;
    if (acc >= need) break;
  }
  until = snapBoundary(draft.turns, until, window.start, window.end);
  if (until <= window.start) return undefined;
  return { start: window.start, end: until };
}

interface Made {
  readonly summary: string;
  readonly strategy: Strategy;
  readonly calls: number;
  readonly errors: number;
  /** Why the llm's summary was not used and the deterministic one was. */
  readonly fellBack?: 'llm_failed_fallback' | 'llm_no_savings_fallback';
}

/**
 * The region's summary. Both strategies summarise the same planned regions (upstream skips a region no
 * larger than summary_target_tokens before calling the model, which after Stage A's reducers left short
 * over-budget records merely pruned under llm while the deterministic strategy summarised them): the model
 * is asked for at most half the region's tokens there, and a summary of its that saves nothing gives way to
 * the deterministic one. Only who writes the summary differs.
 */
async function summarise(region: readonly Turn[], start: number, regionTokens: number, env: CompressEnv, signal: AbortSignal): Promise<Made> {
  const { config, counter } = env;
  const extract = (): string => keyDecisionSummary(region, start, counter, config.summaryTargetTokens);
  if (config.strategy === 'placeholder') return { summary: PLACEHOLDER_SUMMARY, strategy: 'placeholder', calls: 0, errors: 0 };
  if (config.strategy === 'llm' && env.summarizer) {
    const targetTokens = Math.max(1, Math.min(config.summaryTargetTokens, Math.floor(regionTokens / 2)));
    const attempts = await env.summarizer.summarize(region, start, signal, targetTokens);
    const { calls, errors } = attempts;
    if (attempts.summary === null) return { summary: extract(), strategy: 'key_decision_extract', calls, errors, fellBack: 'llm_failed_fallback' };
    if (counter.count(attempts.summary) >= regionTokens)
      return { summary: extract(), strategy: 'key_decision_extract', calls, errors, fellBack: 'llm_no_savings_fallback' };
    return { summary: attempts.summary, strategy: 'llm', calls, errors };
  }
  return { summary: extract(), strategy: 'key_decision_extract', calls: 0, errors: 0 };
}
