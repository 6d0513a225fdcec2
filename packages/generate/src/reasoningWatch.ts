// The warning for a run that asked for reasoning (--reasoning-effort) and gets none back: every reply
// of the first prompts, or of the whole run when it is shorter, had no reasoning in any of the fields
// it is read from (modelReply.ts REASONING_FIELDS). Said once, with those fields named, so a gateway
// that drops or moves the reasoning is noticed before a week of records without it (each a "no
// reasoning" tombstone under --discard-no-reasoning).
import { reasoningStats, type ChatMessage } from '@hermes-datagen/core';
import { REASONING_FIELDS } from './modelReply.js';

/** Records seen without any reasoning before the warning is given during the run. */
export const RECORDS_BEFORE_WARNING = 10;

export class ReasoningWatch {
  private records = 0;
  private withReasoning = 0;
  private warned = false;

  public constructor(
    private readonly reasoningEffort: string | undefined,
    private readonly warn: (message: string) => void,
  ) {}

  /** One agent run's messages (a prompt's or a sub-agent's). */
  public observe(messages: readonly ChatMessage[]): void {
    if (this.reasoningEffort === undefined) return;
    const stats = reasoningStats(messages);
    if (stats.total_assistant_turns === 0) return;
    this.records += 1;
    if (stats.has_any_reasoning) this.withReasoning += 1;
    if (this.records >= RECORDS_BEFORE_WARNING) this.check();
  }

  /** At the end of the run: warns if it has not yet and no record had reasoning. */
  public finish(): void {
    this.check();
  }

  private check(): void {
    if (this.warned || this.records === 0 || this.withReasoning > 0) return;
    this.warned = true;
    this.warn(
      `--reasoning-effort ${this.reasoningEffort} was sent, but none of the ${this.records} agent runs so far got reasoning back in any reply: looked in ${REASONING_FIELDS}; the model may not reason, or the gateway drops its reasoning (LiteLLM: merge_reasoning_content_in_choices, or a model that returns thinking_blocks)`,
    );
  }
}
