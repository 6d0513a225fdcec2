// Format parity with upstream's own functions (Python json.loads / json.dumps, _extract_tool_stats,
// _extract_reasoning_stats, extract_reasoning, _convert_to_trajectory_format as
// /work/shared/spec/hermes-batch-format.md describes them). Where we match upstream the test says what
// upstream gives; where we differ on purpose the test pins our behaviour next to upstream's, and
// docs/upstream-differences.md#smaller-differences-in-the-format names it.
import { describe, expect, it } from 'vitest';
import { pythonJsonDumps } from '@hermes-datagen/core';
import { parseJsonLossless } from '@hermes-datagen/core/internal/losslessJson.js';
import { assistantHasReasoning, gptTurnHasReasoning } from '@hermes-datagen/core/internal/reasoning.js';
import { toShareGpt } from '@hermes-datagen/core/internal/sharegpt.js';
import { extractReasoning } from '@hermes-datagen/core/internal/think.js';
import { toolCallSucceeded } from '@hermes-datagen/core/internal/toolStats.js';
import type { ChatMessage } from '@hermes-datagen/core';

/** json.dumps(json.loads(text)), as upstream rewrites tool arguments and results. */
const roundTrip = (text: string): string => pythonJsonDumps(parseJsonLossless(text));

describe('matches upstream', () => {
  it('an integer of 309+ digits keeps its digits (Python ints have no size limit), alone in its JSON or not', () => {
    const big = `1${'0'.repeat(400)}`;
    // No other whole number in the text: JSON.parse makes it Infinity, which the fast path took for exact.
    expect(roundTrip(`{"n": ${big}}`)).toBe(`{"n": ${big}}`);
    expect(roundTrip(big)).toBe(big);
    expect(roundTrip(`[-${'9'.repeat(309)}]`)).toBe(`[-${'9'.repeat(309)}]`);
    expect(roundTrip(`{"n": ${big}, "m": 1}`)).toBe(`{"n": ${big}, "m": 1}`);
    // A float too large for a double is inf in Python, which json.dumps writes as Infinity.
    expect(roundTrip('{"x": 1e400}')).toBe('{"x": Infinity}');
  });

  it('toolCallSucceeded reads NaN / Infinity as json.loads does: an object with an error is a failure', () => {
    expect(toolCallSucceeded('{"error":"boom","score":NaN}')).toBe(false);
    expect(toolCallSucceeded('{"success": false, "ratio": Infinity}')).toBe(false);
    expect(toolCallSucceeded('{"content": {"error": "x"}, "t": -Infinity}')).toBe(false);
    expect(toolCallSucceeded('{"score": NaN}')).toBe(true);
    // Still not JSON for json.loads either: the text rule decides.
    expect(toolCallSucceeded('NaN is not a number')).toBe(true);
    expect(toolCallSucceeded('error: NaN')).toBe(false);
  });
});

describe('differs from upstream on purpose (docs/upstream-differences.md)', () => {
  it('an unclosed or empty scratchpad is not reasoning (upstream: the substring <REASONING_SCRATCHPAD> is)', () => {
    const unclosed = '<REASONING_SCRATCHPAD>thinking, never closed';
    const empty = '<REASONING_SCRATCHPAD>  </REASONING_SCRATCHPAD>The answer.';
    // Upstream's rule: "<REASONING_SCRATCHPAD>" in content -> has reasoning, for both.
    for (const content of [unclosed, empty]) {
      expect(content.includes('<REASONING_SCRATCHPAD>')).toBe(true);
      expect(assistantHasReasoning({ role: 'assistant', content })).toBe(false);
      expect(gptTurnHasReasoning(content)).toBe(false);
    }
    expect(assistantHasReasoning({ role: 'assistant', content: '<REASONING_SCRATCHPAD>Plan.</REASONING_SCRATCHPAD>The answer.' })).toBe(true);
  });

  it('reasoning_details with both thinking and text takes thinking (newer upstream; B0, which had no thinking, took text)', () => {
    expect(extractReasoning({ role: 'assistant', content: 'A', reasoning_details: [{ thinking: 'Thought.', text: 'Text.' }] }).reasoning).toBe('Thought.');
    expect(extractReasoning({ role: 'assistant', content: 'A', reasoning_details: [{ text: 'Text.' }] }).reasoning).toBe('Text.');
  });

  it('integer-like keys move first in rewritten objects (Python dicts keep insertion order: {"b": 1, "2": 0})', () => {
    expect(roundTrip('{"b": 1, "2": 0, "a": 3, "10": 4}')).toBe('{"2": 0, "10": 4, "b": 1, "a": 3}');
    // Keys that are not canonical array indices keep their place.
    expect(roundTrip('{"b": 1, "02": 0, "-1": 2}')).toBe('{"b": 1, "02": 0, "-1": 2}');
  });

  it('"tool_call_id": null is written as "" (upstream: tool_msg.get("tool_call_id", "") gives None, written null)', () => {
    // As the messages arrive from a provider that sends the id as null.
    const messages: ChatMessage[] = JSON.parse(
      '[{"role": "user", "content": "Q"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "c0", "type": "function", ' +
        '"function": {"name": "t", "arguments": "{}"}}]}, {"role": "tool", "content": "x", "tool_call_id": null}]',
    );
    expect(toShareGpt(messages, 'Q', [])[3]?.value).toBe('<tool_response>\n{"tool_call_id": "", "name": "t", "content": "x"}\n</tool_response>');
  });
});
