// Text that hermes-compress writes into a conversation (summaries, stubs, cut tool output) must never
// open or close a block that a reader of the trajectory would parse: a literal `</think>` in a quoted
// tool result would otherwise end the model's thought early, or forge a <tool_call>. The `<` of each
// such tag becomes `&lt;`, so the quote stays visible and readable but is no longer a tag.
const TAGS = /<(\/?)(think|tool_call|tool_response|REASONING_SCRATCHPAD|tools)>/g;

export function escapeTags(text: string): string {
  return text.includes('<') ? text.replace(TAGS, '&lt;$1$2>') : text;
}
