// The stream stage: every trajectory out with normalised tool_stats / tool_error_counts (its input
// line unchanged when it already was), tombstones unchanged, and the summary of all of them.
import { resolve } from 'node:path';
import { writeJsonAtomic, type RunContext } from '@hermes-datagen/core';
import type { ToolStatsNormaliser } from './normalise.js';
import { addTombstone, addTrajectory, emptySummary, finaliseSummary } from '@hermes-datagen/core';

export interface StreamOptions {
  readonly normaliser: ToolStatsNormaliser;
  /** Where to write the summary; none is computed without it (it parses every gpt turn). */
  readonly summaryPath?: string | undefined;
}

export async function normaliseStream(ctx: RunContext, { normaliser, summaryPath }: StreamOptions): Promise<void> {
  const out = await ctx.openOutput();
  const summary = summaryPath === undefined ? undefined : emptySummary();
  for await (const batch of ctx.readRecords({ tombstones: true })) {
    for (const input of batch) {
      if (input.kind === 'tombstone') {
        ctx.stats.add('tombstones');
        if (summary) addTombstone(summary, input.value);
        await out.writeLine(input.bytes);
        continue;
      }
      const result = normaliser.normalise(input.value);
      if ('problem' in result) {
        await ctx.rejectRecord(input, result.problem);
        continue;
      }
      if (result.changed) {
        ctx.stats.add('normalised');
        await out.write(result.record);
      } else {
        await out.writeLine(input.bytes);
      }
      if (summary) addTrajectory(summary, result.record);
    }
  }
  if (summary && summaryPath !== undefined) await writeJsonAtomic(resolve(ctx.io.cwd, summaryPath), finaliseSummary(summary));
}

/** A parsed line that is not a trajectory, under the same --on-error / --rejects policy as a bad line. */
