// Upstream's metrics, field for field and in upstream's key order (docs/compression.md#metrics):
// `compression_metrics` on each compressed record, and the aggregate of the --metrics-file, to which
// this project adds counts by status and reason.
import type { CompressionMetrics } from '@hermes-datagen/core';

export interface MetricsInput {
  originalTokens: number;
  compressedTokens: number;
  originalTurns: number;
  compressedTurns: number;
  /** The replaced region [start, end) of the original turns, if any. */
  region: { start: number; end: number } | undefined;
  wasCompressed: boolean;
  stillOverLimit: boolean;
  skippedUnderTarget: boolean;
  apiCalls: number;
  apiErrors: number;
}

const round = (value: number, places: number): number => Math.round(value * 10 ** places) / 10 ** places;

export function compressionMetrics(m: MetricsInput): CompressionMetrics {
  return {
    original_tokens: m.originalTokens,
    compressed_tokens: m.compressedTokens,
    tokens_saved: m.originalTokens - m.compressedTokens,
    compression_ratio: round(m.compressedTokens / Math.max(m.originalTokens, 1), 4),
    original_turns: m.originalTurns,
    compressed_turns: m.compressedTurns,
    turns_removed: m.originalTurns - m.compressedTurns,
    compression_region: m.region
      ? { start_idx: m.region.start, end_idx: m.region.end, turns_count: m.region.end - m.region.start }
      : { start_idx: -1, end_idx: -1, turns_count: 0 },
    was_compressed: m.wasCompressed,
    still_over_limit: m.stillOverLimit,
    skipped_under_target: m.skippedUnderTarget,
    summarization_api_calls: m.apiCalls,
    summarization_errors: m.apiErrors,
  };
}

/** AggregateMetrics: what upstream sums, plus counts by status and reason. */
export class AggregateMetrics {
  private total = 0;
  private compressed = 0;
  private skipped = 0;
  private overLimit = 0;
  private failed = 0;
  private notTokenised = 0;
  private tokensBefore = 0;
  private tokensAfter = 0;
  private turnsBefore = 0;
  private turnsAfter = 0;
  private ratios = 0;
  private saved = 0;
  private removed = 0;
  private apiCalls = 0;
  private apiErrors = 0;
  private readonly statuses: Record<string, number> = {};
  private readonly reasons: Record<string, number> = {};
  private readonly strategies: Record<string, number> = {};
  private readonly started = new Date();

  /** One record's outcome; `metrics` is absent when its tokens were not counted. */
  public add(status: string, reason: string, strategy: string | null, metrics: MetricsInput | undefined): void {
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    this.reasons[reason] = (this.reasons[reason] ?? 0) + 1;
    if (strategy) this.strategies[strategy] = (this.strategies[strategy] ?? 0) + 1;
    // Upstream totals neither failures nor their tokens; a record skipped without counting its
    // tokens (the byte bound) is totalled as skipped, its tokens counted in records_not_tokenised.
    if (status === 'error') {
      this.failed++;
      return;
    }
    this.total++;
    if (!metrics) {
      this.skipped++;
      this.notTokenised++;
      return;
    }
    this.apiCalls += metrics.apiCalls;
    this.apiErrors += metrics.apiErrors;
    this.tokensBefore += metrics.originalTokens;
    this.tokensAfter += metrics.compressedTokens;
    this.turnsBefore += metrics.originalTurns;
    this.turnsAfter += metrics.compressedTurns;
    if (metrics.skippedUnderTarget) this.skipped++;
    if (metrics.stillOverLimit) this.overLimit++;
    if (metrics.wasCompressed) {
      this.compressed++;
      this.ratios += metrics.compressedTokens / Math.max(metrics.originalTokens, 1);
      this.saved += metrics.originalTokens - metrics.compressedTokens;
      this.removed += metrics.originalTurns - metrics.compressedTurns;
    }
  }

  public count(status: string): number {
    return this.statuses[status] ?? 0;
  }

  public get tokens(): { before: number; after: number } {
    return { before: this.tokensBefore, after: this.tokensAfter };
  }

  public toJSON(): Record<string, unknown> {
    const ended = new Date();
    return {
      summary: {
        total_trajectories: this.total,
        trajectories_compressed: this.compressed,
        trajectories_skipped_under_target: this.skipped,
        trajectories_still_over_limit: this.overLimit,
        trajectories_failed: this.failed,
        compression_rate: round(this.compressed / Math.max(this.total, 1), 4),
      },
      tokens: {
        total_before: this.tokensBefore,
        total_after: this.tokensAfter,
        total_saved: this.tokensBefore - this.tokensAfter,
        overall_compression_ratio: round(this.tokensAfter / Math.max(this.tokensBefore, 1), 4),
        records_not_tokenised: this.notTokenised,
      },
      turns: { total_before: this.turnsBefore, total_after: this.turnsAfter, total_removed: this.turnsBefore - this.turnsAfter },
      averages: {
        avg_compression_ratio: this.compressed > 0 ? round(this.ratios / this.compressed, 4) : 1.0,
        avg_tokens_saved_per_compressed: this.compressed > 0 ? round(this.saved / this.compressed, 1) : 0,
        avg_turns_removed_per_compressed: this.compressed > 0 ? round(this.removed / this.compressed, 2) : 0,
      },
      summarization: {
        total_api_calls: this.apiCalls,
        total_errors: this.apiErrors,
        success_rate: round(1 - this.apiErrors / Math.max(this.apiCalls, 1), 4),
      },
      processing: {
        start_time: this.started.toISOString(),
        end_time: ended.toISOString(),
        duration_seconds: round((ended.getTime() - this.started.getTime()) / 1000, 2),
      },
      by_status: { ...this.statuses },
      by_reason: { ...this.reasons },
      by_strategy: { ...this.strategies },
    };
  }
}
