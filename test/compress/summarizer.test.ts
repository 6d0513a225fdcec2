// Upstream's summariser and metrics vectors (tests/test_trajectory_compressor.py;
// docs/compression.md): region rendering, the prompt, reply post-processing, Kimi's temperature, backoff, aggregate
// defaults and the per-record metrics' key order.
import { describe, expect, it } from 'vitest';
import type { Turn } from '@hermes-datagen/core';
import { AggregateMetrics, compressionMetrics } from '@hermes-datagen/compress/internal/metrics.js';
import { backoffMs, finishSummary, omitsTemperature, renderRegion, summaryPrompt } from '@hermes-datagen/compress/internal/summarizer.js';

describe('renderRegion (_extract_turn_content_for_summary)', () => {
  it('writes [Turn i - ROLE]: with original indices, joined by blank lines; an empty range is ""', () => {
    const turns: Turn[] = [
      { from: 'gpt', value: 'called a tool' },
      { from: 'tool', value: 'result' },
    ];
    expect(renderRegion(turns, 4)).toBe('[Turn 4 - GPT]:\ncalled a tool\n\n[Turn 5 - TOOL]:\nresult');
    expect(renderRegion([], 3)).toBe('');
  });

  it('elides values over 3,000 code points to the first 1,500 and last 500 around the marker', () => {
    const value = `${'a'.repeat(1500)}${'m'.repeat(2000)}${'z'.repeat(500)}`;
    const text = renderRegion([{ from: 'tool', value }], 0);
    expect(text).toBe(
      `[Turn 0 - TOOL]:\n${'a'.repeat(1500)}⟪HERMES-CONTEXT-COMPRESSION: 2,000 of 4,000 chars omitted here by Hermes's context compressor.⟫${'z'.repeat(500)}`,
    );
    expect(renderRegion([{ from: 'tool', value: 'é'.repeat(3000) }], 0)).not.toContain('⟪');
  });
});

describe('the request and the reply', () => {
  it('asks for the target size, the same language, and the [CONTEXT SUMMARY]: prefix', () => {
    const prompt = summaryPrompt('[Turn 2 - GPT]:\nx', 750);
    expect(prompt).toContain('Target approximately 750 tokens.');
    expect(prompt).toContain('same language');
    expect(prompt).toContain('TURNS TO SUMMARIZE:\n[Turn 2 - GPT]:\nx\n---');
    expect(prompt.endsWith('starting with "[CONTEXT SUMMARY]:" prefix.')).toBe(true);
  });

  it('adds the prefix when missing, keeps it when present, and turns None content into the bare prefix', () => {
    expect(finishSummary('  The agent ran tests.  ')).toBe('[CONTEXT SUMMARY]: The agent ran tests.');
    expect(finishSummary('[CONTEXT SUMMARY]: done')).toBe('[CONTEXT SUMMARY]: done');
    expect(finishSummary(null)).toBe('[CONTEXT SUMMARY]:');
    expect(finishSummary('ran </tool_response> then <think>')).toBe('[CONTEXT SUMMARY]: ran &lt;/tool_response> then &lt;think>');
  });

  it('leaves temperature out for Kimi models (the server manages it)', () => {
    expect(omitsTemperature('kimi-k2-thinking')).toBe(true);
    expect(omitsTemperature('moonshotai/kimi-k2')).toBe(true);
    expect(omitsTemperature('google/gemini-3-flash-preview')).toBe(false);
  });

  it("backs off like upstream's jittered_backoff: min(base × 2^(n−1), 30 s) plus up to half again", () => {
    expect(backoffMs(1, 2, () => 0)).toBe(2000);
    expect(backoffMs(2, 2, () => 0.999)).toBeCloseTo(6000, -1);
    expect(backoffMs(10, 2, () => 0)).toBe(30_000);
  });
});

describe('metrics', () => {
  it('aggregate defaults when nothing was processed: ratio 1.0, success 1.0, overall 0.0', () => {
    const json = new AggregateMetrics().toJSON() as Record<string, Record<string, number>>;
    expect(json['summary']).toMatchObject({ total_trajectories: 0, compression_rate: 0 });
    expect(json['averages']).toEqual({ avg_compression_ratio: 1.0, avg_tokens_saved_per_compressed: 0, avg_turns_removed_per_compressed: 0 });
    expect(json['summarization']).toEqual({ total_api_calls: 0, total_errors: 0, success_rate: 1.0 });
    expect(json['tokens']).toMatchObject({ overall_compression_ratio: 0 });
  });

  it("per-record metrics: upstream's fields in upstream's order, ratio to 4 places, exclusive end", () => {
    const m = compressionMetrics({
      originalTokens: 19350,
      compressedTokens: 14830,
      originalTurns: 12,
      compressedTurns: 11,
      region: { start: 4, end: 6 },
      wasCompressed: true,
      stillOverLimit: false,
      skippedUnderTarget: false,
      apiCalls: 1,
      apiErrors: 0,
    });
    expect(JSON.stringify(m)).toBe(
      '{"original_tokens":19350,"compressed_tokens":14830,"tokens_saved":4520,"compression_ratio":0.7664,"original_turns":12,"compressed_turns":11,"turns_removed":1,' +
        '"compression_region":{"start_idx":4,"end_idx":6,"turns_count":2},"was_compressed":true,"still_over_limit":false,"skipped_under_target":false,"summarization_api_calls":1,"summarization_errors":0}',
    );
  });

  it('totals compressed, skipped (also untokenised) and failed records as upstream does', () => {
    const agg = new AggregateMetrics();
    const base = { originalTurns: 10, compressedTurns: 10, region: undefined, stillOverLimit: false, skippedUnderTarget: false, apiCalls: 0, apiErrors: 0 };
    agg.add('compressed', 'fits', 'key_decision_extract', { ...base, originalTokens: 1000, compressedTokens: 250, compressedTurns: 6, wasCompressed: true });
    agg.add('skipped', 'under_target', null, { ...base, originalTokens: 100, compressedTokens: 100, wasCompressed: false, skippedUnderTarget: true });
    agg.add('skipped', 'under_target', null, undefined);
    agg.add('error', 'timeout', null, undefined);
    const json = agg.toJSON() as Record<string, Record<string, unknown>>;
    expect(json['summary']).toMatchObject({ total_trajectories: 3, trajectories_compressed: 1, trajectories_skipped_under_target: 2, trajectories_failed: 1 });
    expect(json['tokens']).toMatchObject({ total_before: 1100, total_after: 350, overall_compression_ratio: 0.3182, records_not_tokenised: 1 });
    expect(json['averages']).toMatchObject({ avg_compression_ratio: 0.25, avg_tokens_saved_per_compressed: 750, avg_turns_removed_per_compressed: 4 });
    expect(json['by_status']).toEqual({ compressed: 1, skipped: 2, error: 1 });
    expect(json['by_reason']).toEqual({ fits: 1, under_target: 2, timeout: 1 });
  });
});
