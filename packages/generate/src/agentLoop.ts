// One prompt -> one agent run: the model is called with the offered tools until it answers without
// calling one, --max-turns model calls are used up (then one summary call, maxTurns.ts), or its
// tool calls go wrong MAX_STRIKES replies in a row (partial). The result is the internal
// OpenAI-format history that trajectory.ts turns into a record, with the counts a record needs.
//
// A model call that finally fails (after the client's retries; a rate limit is waited out) throws: the prompt has no
// trajectory, and the caller reports it (promptFailure.ts). api_calls counts answered model calls
// of the main loop only (docs/rules.md#completed-partial-and-api_calls): not transport retries, not the summary call.
import type { ChatMessage, ToolDefinition, Usage } from '@hermes-datagen/core';
import type { ChatClient, WaitTracker } from '@hermes-datagen/core/endpoint';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { MAX_TURNS_MESSAGE, summaryMessage } from './maxTurns.js';
import { addUsage, NO_USAGE, readModelReply, wireAssistantMessage, type ModelReply } from './modelReply.js';
import { checkToolCall, errorResult, MAX_STRIKES, type ToolNames } from './toolCallValidation.js';

export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export const DEFAULT_MAX_TURNS = 10;
/** --request-timeout's default: one hung call used to take 6 minutes (120 s a try, three tries). */
export const DEFAULT_REQUEST_TIMEOUT_S = 120;

/**
 * Finish reasons of a turn that did not end as the model meant: cut off by the length limit, held
 * back by a filter, failed at the provider, or a function call the provider could not parse
 * (Gemini's MALFORMED_FUNCTION_CALL). Such a turn is left out and never makes a run `completed`.
 */
const CUT_OFF = /^(length|content_filter|error)$|malformed|refusal|safety|recitation|blocklist|prohibited/i;

/** The model client the loop calls (core's: a client of the endpoint, rate-limited in run mode). */
export type { ChatClient };

export interface AgentInput {
  readonly prompt: string;
  readonly model: string;
  readonly client: ChatClient;
  /** The tools offered to the model, in the order the system turn lists them. */
  readonly tools: readonly ToolDefinition[];
  /** Every name of the tool registry: a call to a name outside it is recorded as unknown. */
  readonly knownToolNames: ReadonlySet<string>;
  /** Runs an offered tool and returns the tool message's content. */
  readonly runTool: (name: string, args: Record<string, unknown>) => Promise<string>;
  readonly maxTurns: number;
  readonly reasoningEffort?: ReasoningEffort | undefined;
  /** Bounds each HTTP attempt of a model call (--request-timeout); waits between attempts never count. */
  readonly requestTimeoutMs: number;
  readonly signal: AbortSignal;
  /** Told when a model call starts and stops waiting for the rate limiter (run/promptClock.ts stops meanwhile). */
  readonly waits?: WaitTracker | undefined;
  /** Put on every request (run mode: the trace fields a gateway logs, run/trace.ts). */
  readonly requestTags?: RequestTags | undefined;
}

/** What a request carries for whoever logs it: the OpenAI `user` field and headers. */
export interface RequestTags {
  readonly user: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface AgentRun {
  /** messages[0] is the user prompt. */
  messages: ChatMessage[];
  /** The model gave a final answer on its own. */
  completed: boolean;
  /** The run was cut short: MAX_STRIKES bad tool-call replies in a row, or a reply cut off (CUT_OFF). */
  partial: boolean;
  apiCalls: number;
  usage: Usage;
  /** Tool names the model called that are in no registry, sorted. */
  unknownTools: string[];
  /** The models the replies said served them, each once, in order (a gateway's fallback shows as a second). */
  servedModels: string[];
}

/** The tools as a request offers them (doctor's probe offers the same). */
export function wireTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? { type: 'object', properties: {} } },
  }));
}

export async function runAgent(input: AgentInput): Promise<AgentRun> {
  const conversation = new Conversation(input);
  try {
    return await converse(conversation, input);
  } finally {
    conversation.close();
  }
}

async function converse(conversation: Conversation, input: AgentInput): Promise<AgentRun> {
  const names: ToolNames = { offered: new Set(input.tools.map((tool) => tool.name)), known: input.knownToolNames };
  let strikes = 0;
  while (conversation.apiCalls < input.maxTurns) {
    const reply = await conversation.call(true);
    conversation.apiCalls += 1;
    // A reply cut off by the length limit may hold half a tool call: it is left out, as upstream does;
    // so is one a filter or the provider cut off.
    if (reply.finishReason !== null && CUT_OFF.test(reply.finishReason)) return conversation.end({ completed: false, partial: true });
    conversation.add(reply.message, wireAssistantMessage(reply.message));
    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) return conversation.end({ completed: true, partial: false });
    let struck = false;
    for (const call of calls) {
      const checked = checkToolCall(call, names);
      if (!checked.ok) {
        struck = true;
        if (checked.unknownName) conversation.unknownTools.add(call.function.name);
      }
      input.signal.throwIfAborted();
      const content = checked.ok ? await input.runTool(call.function.name, checked.args) : errorResult(checked.error);
      conversation.add({ role: 'tool', content, tool_call_id: call.id, name: call.function.name }, { role: 'tool', content, tool_call_id: call.id });
    }
    strikes = struck ? strikes + 1 : 0;
    if (strikes >= MAX_STRIKES) return conversation.end({ completed: false, partial: true });
  }
  conversation.add({ role: 'user', content: MAX_TURNS_MESSAGE }, { role: 'user', content: MAX_TURNS_MESSAGE });
  const summary = await conversation.call(false);
  const message = summaryMessage(summary.message);
  conversation.add(message, wireAssistantMessage(message));
  return conversation.end({ completed: false, partial: false });
}

/** The history twice: as stored (with normalised reasoning) and as sent back to the endpoint. */
class Conversation {
  public apiCalls = 0;
  public readonly unknownTools = new Set<string>();
  private readonly servedModels = new Set<string>();
  private readonly messages: ChatMessage[];
  private readonly wire: ChatCompletionMessageParam[];
  private readonly tools: ChatCompletionTool[];
  private usage: Usage = NO_USAGE;
  private replies = 0;
  /**
   * The signal of the prompt's model calls: the run's, relayed, so whatever a client leaves on it
   * goes with the prompt. One for the prompt, not one per call: a signal and a listener per call
   * were a measurable share of a call's CPU.
   */
  private readonly calls = new AbortController();
  private readonly relay = (): void => this.calls.abort(this.input.signal.reason);

  public constructor(private readonly input: AgentInput) {
    input.signal.addEventListener('abort', this.relay, { once: true });
    if (input.signal.aborted) this.relay();
    this.messages = [{ role: 'user', content: input.prompt }];
    this.wire = [{ role: 'user', content: input.prompt }];
    this.tools = wireTools(input.tools);
  }

  public async call(withTools: boolean): Promise<ModelReply> {
    this.input.signal.throwIfAborted();
    const tags = this.input.requestTags;
    // --request-timeout bounds each HTTP attempt (the client's timer), never the waits between them.
    const body: unknown = await this.input.client.chat.completions.create(
      {
        model: this.input.model,
        messages: this.wire,
        ...(withTools && this.tools.length > 0 ? { tools: this.tools } : {}),
        ...(this.input.reasoningEffort !== undefined ? { reasoning_effort: this.input.reasoningEffort } : {}),
        ...(tags !== undefined ? { user: tags.user } : {}),
      },
      { signal: this.calls.signal, timeout: this.input.requestTimeoutMs, headers: tags?.headers, waits: this.input.waits },
    );
    const reply = readModelReply(body, this.replies);
    this.replies += 1;
    this.usage = addUsage(this.usage, reply.usage);
    if (reply.servedModel !== null) this.servedModels.add(reply.servedModel);
    return reply;
  }

  /** Unlinks the prompt's calls from the run's signal. */
  public close(): void {
    this.input.signal.removeEventListener('abort', this.relay);
  }

  public add(stored: ChatMessage, sent: ChatCompletionMessageParam): void {
    this.messages.push(stored);
    this.wire.push(sent);
  }

  public end(outcome: { completed: boolean; partial: boolean }): AgentRun {
    return {
      messages: this.messages,
      ...outcome,
      apiCalls: this.apiCalls,
      usage: this.usage,
      unknownTools: [...this.unknownTools].sort(),
      servedModels: [...this.servedModels],
    };
  }
}
