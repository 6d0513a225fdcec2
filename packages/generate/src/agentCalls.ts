// One agent's model calls, as the record and the run account for them: each reply is priced
// (core prices.ts: the gateway's own figure, or usage x --prices) and counted toward the run's
// budget, and in run mode journaled, so that a resumed prompt replays the replies it was already
// given instead of buying them again (run/callJournal.ts). A replay is taken only while the request
// the agent would send is byte for byte the journaled one: once a tool's output differs, the requests
// differ, and the agent goes on live from there.
import { createHash } from 'node:crypto';
import { replyCost, type PriceTable } from '@hermes-datagen/core';
import type { ChatClient, ChatRequestOptions } from '@hermes-datagen/core/endpoint';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';

/** What the run counts of every call: its price table, and where spending goes (the budget). */
export interface CallAccounting {
  /** Model id -> price; without it no cost is computed, and records carry none. */
  readonly prices?: PriceTable | undefined;
  /** A reply's model has no price (the caller warns once per model). */
  readonly unpriced?: ((model: string) => void) | undefined;
  /** Every answered call, replayed ones included: its cost (undefined: not priced) and total tokens. */
  readonly spent?: ((usd: number | undefined, tokens: number) => void) | undefined;
  /** The calls go through the provider's batch API (--batch-api): priced less the model's batch_discount. */
  readonly batch?: boolean | undefined;
}

/** A reply of an earlier invocation, and whether it came through the batch API (and was paid for at its price). */
export interface JournaledReply {
  readonly reply: ChatCompletion;
  readonly batch: boolean;
}

/** One agent's journal in run mode: replies of an earlier invocation by turn, and where new ones go. */
export interface JournalSession {
  /** The journaled reply of this turn when it answered exactly this request. */
  replay(turn: number, request: string): JournaledReply | undefined;
  /** A live reply, made durable for a later --resume. */
  record(turn: number, request: string, reply: ChatCompletion, batch: boolean): void;
}

export class AgentCalls {
  public readonly client: ChatClient;
  /** Calls answered from the journal instead of the endpoint. */
  public replayed = 0;
  private cost = 0;
  /** Every call so far had a price (or a gateway figure). */
  private priced = true;
  private calls = 0;
  private turn = 0;
  /** Once a request differs from the journal's, the rest of the agent's calls are live. */
  private diverged = false;

  /**
   * `id`: the agent's record id, given to `inner` with each call's turn (ChatRequestOptions.call), by
   * which a batch API client names the request.
   */
  public constructor(
    inner: ChatClient,
    private readonly model: string,
    private readonly accounting: CallAccounting,
    private readonly journal?: JournalSession | undefined,
    private readonly id?: string | undefined,
  ) {
    this.client = { chat: { completions: { create: (body, options) => this.create(inner, body, options) } } };
  }

  /** The agent's cost in USD, when every one of its calls was priced; undefined otherwise (never a guess). */
  public get costUsd(): number | undefined {
    return this.priced && this.calls > 0 ? this.cost : undefined;
  }

  private async create(inner: ChatClient, body: ChatCompletionCreateParamsNonStreaming, options?: ChatRequestOptions): Promise<ChatCompletion> {
    const turn = this.turn;
    this.turn += 1;
    const request = this.journal === undefined ? '' : requestHash(body);
    const journaled = this.diverged ? undefined : this.journal?.replay(turn, request);
    if (journaled !== undefined) {
      this.replayed += 1;
      this.account(journaled.reply, journaled.batch);
      return journaled.reply;
    }
    this.diverged = true;
    const reply = await inner.chat.completions.create(body, this.id === undefined ? options : { ...options, call: { id: this.id, turn } });
    const batch = this.accounting.batch === true;
    this.journal?.record(turn, request, reply, batch);
    this.account(reply, batch);
    return reply;
  }

  /** Counts a reply's cost: a batch API reply's at the model's batch price, whichever invocation it came in. */
  private account(reply: ChatCompletion, batch: boolean): void {
    this.calls += 1;
    const { usd, tokens, model } = replyCost(reply, this.model, this.accounting.prices, batch);
    if (usd === undefined) {
      this.priced = false;
      if (this.accounting.prices !== undefined) this.accounting.unpriced?.(model);
    } else {
      this.cost += usd;
    }
    this.accounting.spent?.(usd, tokens);
  }
}

/**
 * What identifies a request for the journal: its body without `user`, which carries the invocation's
 * trace id (run/trace.ts) and so differs on every resume; headers never reach the body.
 */
export function requestHash(body: ChatCompletionCreateParamsNonStreaming): string {
  const { user: _traced, ...request } = body;
  return createHash('sha256').update(JSON.stringify(request)).digest('base64url').slice(0, 32);
}
