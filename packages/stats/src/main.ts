// hermes-stats: the statistics stage of a pipeline (normalised tool_stats on every record, a mergeable
// summary on the side) and the analysis of finished runs.
//
// Commands (each in its own module; main only declares them):
//   hermes-stats [FILES|-]           stream stage                       stream.ts, normalise.ts, summary.ts
//   hermes-stats merge A.json B.json shard summaries -> one summary     merge.ts, summary.ts
//   (sql, report, export: DuckDB analysis over runs, added beside these)
import { resolve } from 'node:path';
import { defineCommand, loadToolRegistry, main as runMain, writeJsonAtomic, type CliSpec } from '@hermes-datagen/core';
import { mergeSummaryFiles } from './merge.js';
import { ToolStatsNormaliser } from './normalise.js';
import { normaliseStream } from './stream.js';

interface StreamStageArgs {
  toolsRegistry?: string;
  recompute: boolean;
  summary?: string;
}

const streamStage = defineCommand<StreamStageArgs>({
  command: '$0 [files..]',
  describe:
    'Pass trajectories through with tool_stats and tool_error_counts normalised over the tool registry (every registry ' +
    'tool, zeros when not called, plus any other tool called; keys sorted), so every record has the same keys. ' +
    'Missing stats are recomputed from the conversations (upstream success rule). Records already normalised and ' +
    'tombstones are written unchanged.',
  stream: true,
  options: (y) =>
    y
      .option('tools-registry', { type: 'string', group: 'Statistics:', describe: 'tool registry JSON (schemas/tool-registry.schema.json) instead of the default one' })
      .option('recompute', { type: 'boolean', default: false, group: 'Statistics:', describe: "recompute tool_stats from the conversations even when the record has them" })
      .option('summary', { type: 'string', group: 'Statistics:', describe: 'write the run summary here: statistics.json shape plus rates, distributions, tokens, per-model and per-toolset counts (mergeable)' }),
  examples: [
    ['$0 trajectories.jsonl > normalised.jsonl', 'normalise tool_stats'],
    ['$0 --summary statistics.json shard-*.jsonl.gz -o all.jsonl', 'normalise and summarise'],
    ['hermes-filter run.jsonl | $0 --summary stats.json | hermes-to-atropos', 'a stage in a pipeline'],
    ['$0 --recompute --tools-registry my-tools.json old.jsonl', 'recount from the conversations over your own registry'],
  ],
  run: async (args, ctx) => {
    const registry = loadToolRegistry(args.toolsRegistry === undefined ? undefined : resolve(ctx.io.cwd, args.toolsRegistry));
    await normaliseStream(ctx, { normaliser: new ToolStatsNormaliser(registry, args.recompute), summaryPath: args.summary, onError: args.onError });
  },
});

interface MergeArgs {
  summaries: string[];
  output?: string;
}

const merge = defineCommand<MergeArgs>({
  command: 'merge <summaries..>',
  describe: 'Merge summaries written by --summary (e.g. one per shard) into the summary one pass over all the shards would give.',
  options: (y) =>
    y
      .positional('summaries', { type: 'string', array: true, demandOption: true, describe: 'summary files (hermes-stats --summary or merge)' })
      .option('output', { alias: 'o', type: 'string', describe: 'write the merged summary here (default: stdout)' }),
  examples: [['$0 merge shard-*/statistics.json -o statistics.json', 'combine the shards of a distributed run']],
  run: async (args, ctx) => {
    const merged = await mergeSummaryFiles(args.summaries, ctx.io.cwd);
    if (args.output === undefined || args.output === '-') ctx.io.stdout.write(`${JSON.stringify(merged, null, 2)}\n`);
    else await writeJsonAtomic(resolve(ctx.io.cwd, args.output), merged);
  },
});

export const spec: CliSpec = {
  name: 'hermes-stats',
  summary: 'Normalise tool_stats on Hermes trajectories and summarise runs (mergeable statistics.json).',
  commands: [streamStage, merge],
  epilog: 'Summaries: "format": "hermes-stats-summary/1" files that validate against schemas/statistics.schema.json.',
};

export function main(): void {
  runMain(spec);
}
