// How the endpoint answers one chat-completion request body, whichever route brought it: the synchronous
// `/chat/completions` sends the answer at once, the batch API writes it as a line of an output or error file.
// The rules are one: the model check, the quota, the gateway dialects, the faults, then the script's or the
// policy's reply.
import { applyReplyFault, DEFAULT_SLOW_DELAY_MS, type FaultAnswer, FaultPicker, httpFaultAnswer, REPLY_FAULTS } from './faults.js';
import { sha256Hex } from './fingerprint.js';
import { gatewayRefusal, type GatewayDialectOptions } from './gatewayDialects.js';
import { errorBody, type HeaderMap } from './http.js';
import type { Quota } from './quota.js';
import { renderCompletion, type Completion } from './reply.js';
import { firstUserText, offeredToolNames, parseChatRequest, stepOf, type ChatRequest } from './request.js';
import { chooseReply } from './responder.js';
import type { Script } from './script.js';

export type ChatAnswer =
  | {
      kind: 'completion';
      completion: Completion;
      request: ChatRequest;
      /** A transport fault: the connection dies mid-body (drop), or the body is cut in half (truncated). */
      cut: 'drop' | 'truncated' | undefined;
      headers: HeaderMap;
      /** How long to wait before answering (latency and slow faults). */
      delayMs: number;
    }
  | (FaultAnswer & {
      kind: 'response';
      /** A refusal of the gateway's kind (a 429 of the quota or of a fault, a dialect's refusal): counted as refused. */
      refused: boolean;
      delayMs: number;
    })
  /** A timeout fault: the request is accepted and never answered. */
  | { kind: 'silence'; delayMs: number };

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export class ChatAnswerer {
  private readonly faults: FaultPicker;

  public constructor(
    private readonly script: Script,
    private readonly options: GatewayDialectOptions & { latencyMs: number; seed: number },
  ) {
    this.faults = new FaultPicker(script.faults ?? [], options.seed);
  }

  /**
   * The answer to a request body (its text, which the fault draws digest). `nth` is the request's number
   * among the chat-completion requests received; `quota` admits it first when the route has one (batches have
   * their own quota: no 429s per line).
   */
  public answer(raw: string, nth: number, quota: Quota | undefined): ChatAnswer {
    const parsed = parseJson(raw);
    const request = parsed.ok ? parseChatRequest(parsed.value) : 'the request body is not valid JSON';
    if (typeof request === 'string') return refusal(400, errorBody({ message: request, type: 'invalid_request_error', code: null }), false);
    const { script, options } = this;
    if (script.models !== undefined && !script.models.includes(request.model)) {
      return refusal(
        404,
        errorBody({
          message: `The model '${request.model}' does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          code: 'model_not_found',
        }),
        false,
      );
    }
    // The quota answers first and at once, as a gateway refuses before the model is asked.
    const admission = quota?.admit(request.model, JSON.stringify(request.messages).length);
    if (admission?.refused) {
      return refusal(429, errorBody({ message: admission.message, type: 'requests', code: 'rate_limit_exceeded' }), true, admission.headers);
    }
    const dialect = gatewayRefusal(options, Object.keys(request), request.model);
    if (dialect !== undefined) return refusal(dialect.status, dialect.body, true);
    const context = { prompt: firstUserText(request), step: stepOf(request), nth, model: request.model, requestDigest: sha256Hex(raw) };
    const fault = this.faults.pick(context);
    const delayMs = options.latencyMs + (fault?.kind === 'slow' ? (fault.delay_ms ?? DEFAULT_SLOW_DELAY_MS) : 0);
    if (fault?.kind === 'timeout') return { kind: 'silence', delayMs };
    const faultAnswer = fault === undefined ? undefined : httpFaultAnswer(fault);
    if (faultAnswer !== undefined) return { ...faultAnswer, kind: 'response', refused: fault?.kind === 'rate_limit', delayMs };
    let reply = chooseReply(script, request);
    if (fault !== undefined && REPLY_FAULTS.includes(fault.kind)) reply = applyReplyFault(fault, reply, context, offeredToolNames(request));
    const completion = renderCompletion(reply, {
      model: options.servedModel ?? request.model,
      // Ids follow the conversation, not the per-run fields (the user field's trace id), so a rerun of the
      // same prompts gets the same ids, and the same token counts downstream.
      requestDigest: sha256Hex(JSON.stringify([request.model, request.messages, request.tools])),
      promptChars: JSON.stringify(request.messages).length,
      reasoningField: script.policy?.reasoning_field ?? 'reasoning',
    });
    const cut = fault?.kind === 'drop' || fault?.kind === 'truncated' ? fault.kind : undefined;
    return { kind: 'completion', completion, request, cut, headers: admission?.headers ?? {}, delayMs };
  }
}

/** Refusals are answered at once, before any latency. */
function refusal(status: number, body: unknown, refused: boolean, headers: HeaderMap = {}): ChatAnswer {
  return { kind: 'response', status, body, headers, refused, delayMs: 0 };
}
