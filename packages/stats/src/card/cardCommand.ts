// `hermes-stats card --out DIR FILES…`: a Hugging Face dataset folder in one pass over the inputs (files or run
// directories): DIR/data/train-0000N-of-0000M.parquet (parquetShards.ts, rows of datasetRows.ts) and
// DIR/README.md (cardText.ts) written from the facts of exactly the records written (cardFacts.ts). Records
// are normalised as the stream stage does, so the card's counts are `hermes-stats --summary`'s. Pushing it is
// `huggingface-cli upload` (docs/hub.md): nothing here talks to the network.
import { basename, join, resolve } from 'node:path';
import { UsageError, loadToolRegistry, trajectoryId, writeFileAtomic, type InputRecord, type RunContext, type Trajectory } from '@hermes-datagen/core';
import { AnalysisDatabase, type DatabaseSettings } from '../duckdb/database.js';
import { resolveInputs } from '../duckdb/inputs.js';
import { ToolStatsNormaliser } from '../normalise.js';
import { CardFactsCollector, runSettings, stageCounters } from './cardFacts.js';
import { renderCard } from './cardText.js';
import { DATASET_COLUMNS, datasetRow, type DatasetFormat } from './datasetRows.js';
import { ParquetShards } from './parquetShards.js';

export interface CardArgs {
  files: string[];
  out: string;
  format: DatasetFormat;
  license: string;
  language: string[];
  taskCategory: string[];
  tag: string[];
  prettyName?: string;
  rowsPerFile: number;
  stageStats: string[];
  run: string[];
  toolsRegistry?: string;
  memoryLimit: string;
  threads: number;
}

/** Tags every card carries; --tag adds more. */
const DEFAULT_TAGS = ['hermes-datagen', 'agent-trajectories', 'tool-calling', 'synthetic'];

export async function writeCard(args: CardArgs, ctx: RunContext): Promise<void> {
  if (!Number.isInteger(args.rowsPerFile) || args.rowsPerFile < 1)
    throw new UsageError(`--rows-per-file must be a whole number of at least 1, got ${args.rowsPerFile}`);
  const { cwd } = ctx.io;
  const dir = resolve(cwd, args.out);
  const settingsOnly = args.run.length === 0 ? [] : resolveInputs(args.run, cwd).runs;
  if (settingsOnly.length < args.run.length) throw new UsageError(`--run ${args.run.join(' ')}: give run directories (each holding a run.json)`);
  const stages = args.stageStats.map((path) => stageCounters({ option: '--stage-stats', path, cwd }));
  const inputs = resolveInputs(args.files, cwd);
  // ctx.readRecords reads args.files: the files found in run directories take the operands' place.
  args.files = [...inputs.files];
  const runs = [...settingsOnly, ...inputs.runs].filter((run) => run.manifest !== null).map((run) => runSettings(run.run, run.manifest as string));
  const normaliser = new ToolStatsNormaliser(loadToolRegistry(args.toolsRegistry, cwd), false);
  const columns = DATASET_COLUMNS[args.format];
  const settings: DatabaseSettings = { memoryLimit: args.memoryLimit, threads: args.threads, cwd };
  const db = await AnalysisDatabase.open(undefined, settings);
  const shards = new ParquetShards(dir, columns, args.rowsPerFile);
  const facts = new CardFactsCollector();
  try {
    const batches = inputs.files.length > 0 ? ctx.readRecords({ tombstones: true }) : [];
    for await (const batch of batches) {
      for (const input of batch) {
        if (input.kind === 'tombstone') {
          facts.addTombstone(input.value);
          continue;
        }
        const made = cardRow(normaliser, args.format, input.value);
        if ('problem' in made) {
          facts.recordsLeftOut += 1;
          await ctx.rejectRecord(input as InputRecord<unknown>, made.problem);
          continue;
        }
        await shards.add(made.row);
        facts.addRecord(made.record);
        ctx.stats.add('rows');
      }
    }
    const files = await shards.finish(db.connection);
    const readme = renderCard(facts.facts(runs, stages), {
      prettyName: args.prettyName ?? basename(dir),
      license: args.license,
      languages: args.language,
      taskCategories: args.taskCategory,
      tags: [...new Set([...DEFAULT_TAGS, ...args.tag])],
      format: args.format,
      columns,
      rows: shards.rows,
      files,
    });
    await writeFileAtomic(join(dir, 'README.md'), readme);
    ctx.log.info(`wrote ${shards.rows} rows in ${files.length} Parquet files to ${join(args.out, 'data')} and ${join(args.out, 'README.md')}`);
  } finally {
    shards.discard();
    db.close();
  }
}

/** The record as the stream stage normalises it, and its row; or why it has none. */
function cardRow(
  normaliser: ToolStatsNormaliser,
  format: DatasetFormat,
  value: Record<string, unknown>,
): { record: Trajectory; row: Record<string, unknown> } | { problem: string } {
  const normalised = normaliser.normalise(value);
  if ('problem' in normalised) return normalised;
  const made = datasetRow(format, normalised.record, trajectoryId(normalised.record));
  return 'problem' in made ? made : { record: normalised.record, row: made.row };
}
