// hermes-stats: the statistics stage of a pipeline (normalised tool_stats on every record, a mergeable
// summary on the side) and the analysis of finished runs.
//
// Commands (each in its own module; main only declares them):
//   hermes-stats [FILES|-]           stream stage                       stream.ts, normalise.ts, summary.ts
//   hermes-stats merge A.json B.json shard summaries -> one summary     merge.ts, summary.ts
//   hermes-stats sql "SELECT…" RUNS  SQL over the inputs as tables       sqlCommand.ts, duckdb/*.ts
//   hermes-stats report RUNS         the standard report (text/JSON/HTML) report.ts, reportData.ts, reportText.ts, reportHtml.ts
//   hermes-stats export --parquet D  the tables as Parquet files         exportParquet.ts, duckdb/*.ts
import { resolve } from 'node:path';
import {
  checkWritableTarget,
  defineCommand,
  loadToolRegistry,
  main as runMain,
  toolsRegistryOption,
  writeJsonAtomic,
  type Argv,
  type CliSpec,
} from '@hermes-datagen/core';
import { DEFAULT_MEMORY_LIMIT, DEFAULT_THREADS } from './duckdb/database.js';
import { withAnalysisDatabase } from './duckdb/session.js';
import { TABLES } from './duckdb/tables.js';
import { exportParquet } from './exportParquet.js';
import { mergeSummaryFiles } from './merge.js';
import { ToolStatsNormaliser } from './normalise.js';
import { writeReport } from './report.js';
import { printQuery, SQL_FORMATS } from './sqlCommand.js';
import { normaliseStream } from './stream.js';

const streamStage = defineCommand({
  command: '$0 [files..]',
  describe:
    'Pass trajectories through with tool_stats and tool_error_counts normalised over the tool registry (every registry ' +
    'tool, zeros when not called, plus any other tool called; keys sorted), so every record has the same keys. ' +
    'Missing stats are recomputed from the conversations (upstream success rule). Records already normalised and ' +
    'tombstones are written unchanged.',
  stream: true,
  options: (y) =>
    toolsRegistryOption(y, 'Statistics:')
      .option('recompute', {
        type: 'boolean',
        default: false,
        group: 'Statistics:',
        describe: 'recompute tool_stats from the conversations even when the record has them',
      })
      .option('summary', {
        type: 'string',
        group: 'Statistics:',
        describe: 'write the run summary here: statistics.json shape plus rates, distributions, tokens, per-model and per-toolset counts (mergeable)',
      }),
  examples: [
    ['$0 trajectories.jsonl > normalised.jsonl', 'normalise tool_stats'],
    ['$0 --summary statistics.json shard-*.jsonl.gz -o all.jsonl', 'normalise and summarise'],
    ['hermes-filter run.jsonl | $0 --summary stats.json | hermes-to-atropos', 'a stage in a pipeline'],
    ['$0 --recompute --tools-registry my-tools.json old.jsonl', 'recount from the conversations over your own registry'],
  ],
  run: async (args, ctx) => {
    if (args.summary !== undefined) checkWritableTarget('--summary', args.summary, ctx.io.cwd);
    const registry = loadToolRegistry(args.toolsRegistry, ctx.io.cwd);
    await normaliseStream(ctx, { normaliser: new ToolStatsNormaliser(registry, args.recompute), summaryPath: args.summary });
  },
});

const merge = defineCommand({
  command: 'merge <summaries..>',
  describe: 'Merge summaries written by --summary (e.g. one per shard) into the summary one pass over all the shards would give.',
  options: (y) =>
    y
      .positional('summaries', { type: 'string', array: true, demandOption: true, describe: 'summary files (hermes-stats --summary or merge)' })
      .option('output', { alias: 'o', type: 'string', describe: 'write the merged summary here (default: stdout)' }),
  examples: [['$0 merge shard-*/statistics.json -o statistics.json', 'combine the shards of a distributed run']],
  run: async (args, ctx) => {
    const merged = mergeSummaryFiles(args.summaries, ctx.io.cwd);
    if (args.output === undefined || args.output === '-') ctx.io.stdout.write(`${JSON.stringify(merged, null, 2)}\n`);
    else await writeJsonAtomic(resolve(ctx.io.cwd, args.output), merged);
  },
});

// ---- Analysis: the inputs (files, or run directories: their *.jsonl / *.jsonl.gz files and run.json)
// loaded into DuckDB tables with a fixed schema (duckdb/tables.ts), then queried.

function databaseOptions<T>(y: Argv<T>) {
  return y
    .option('db', {
      type: 'string',
      group: 'Database:',
      describe: 'keep the tables in this DuckDB file: rebuilt from the inputs when inputs are given (- for stdin), queried as it is when none are',
    })
    .option('memory-limit', {
      type: 'string',
      default: DEFAULT_MEMORY_LIMIT,
      group: 'Database:',
      describe: "DuckDB's memory limit; past it DuckDB spills to a temporary directory",
    })
    .option('threads', { type: 'number', default: DEFAULT_THREADS, group: 'Database:', describe: 'DuckDB worker threads' });
}

const TABLES_HELP = [
  'Tables (sql, report, export; DESCRIBE <table> or duckdb_columns() describe each column):',
  ...TABLES.map((t) => `  ${t.name.padEnd(13)}${t.columns.map((c) => c.name).join(', ')}`),
].join('\n');

const sql = defineCommand({
  command: 'sql <query> [files..]',
  describe:
    'Run SQL over the inputs, loaded as the tables listed below. Inputs are JSONL files or run directories; none reads ' +
    'stdin, or, with --db, queries the database as it was left. With several statements the last one is printed. Each record ' +
    "is loaded once: of a run directory, its batch files are read and not trajectories.jsonl, their merge (also when a run's " +
    'files are named one by one, as run/*.jsonl: the merged file is then skipped with a warning).',
  stream: true,
  options: (y) =>
    databaseOptions(y)
      .positional('query', { type: 'string', demandOption: true, describe: 'SQL over the tables below' })
      .option('format', { choices: SQL_FORMATS, group: 'Output:', describe: 'table (default on a terminal), jsonl (default otherwise) or csv' })
      .epilog(TABLES_HELP),
  examples: [
    ['$0 sql "SELECT model, avg(turns) FROM trajectories GROUP BY model" data/run1', 'a question about a run directory'],
    ['$0 sql "SELECT name, count(*) FILTER (NOT success) AS failed FROM tool_calls GROUP BY name ORDER BY failed DESC" run.jsonl', 'failing tools'],
    ['$0 sql --db runs.duckdb "SELECT count(*) FROM trajectories" data/run1 data/run2', 'load two runs into a database file'],
    ['$0 sql --db runs.duckdb --format csv "SELECT * FROM tool_stats" > tool_stats.csv', 'query it again without reloading'],
  ],
  run: (args, ctx) =>
    withAnalysisDatabase(args, ctx, async (db) => {
      const isTerminal = (ctx.io.stdout as { isTTY?: boolean }).isTTY === true;
      await printQuery(db.connection, args.query, args.format ?? (isTerminal ? 'table' : 'jsonl'), await ctx.openOutput());
    }),
});

const report = defineCommand({
  command: 'report [files..]',
  describe:
    "The standard report of a run, computed by SQL over the same tables: upstream Hermes' end-of-run summary (tool usage " +
    'table, reasoning coverage, discarded samples) with completion, failures by tool, completion by model and the turns histogram.',
  stream: true,
  options: (y) =>
    databaseOptions(y)
      .option('json', {
        type: 'boolean',
        default: false,
        group: 'Output:',
        describe: "print the numbers as JSON, in the shape of the stream stage's --summary file",
      })
      .option('html', { type: 'string', group: 'Output:', describe: 'also write one self-contained HTML page with charts here' }),
  examples: [
    ['$0 report data/run1', 'the console summary of a run directory'],
    ['$0 report --html report.html shard-*.jsonl.gz', 'a page to open in a browser'],
    ['$0 report --json run.jsonl | jq .tool_statistics', 'the numbers for a script'],
  ],
  run: (args, ctx) => {
    if (args.html !== undefined) checkWritableTarget('--html', args.html, ctx.io.cwd);
    const inputs = args.files.length > 0 ? [...args.files] : [args.db ?? '<stdin>'];
    return withAnalysisDatabase(args, ctx, (db) => writeReport(db, ctx, { json: args.json, html: args.html, inputs }));
  },
});

const exportTables = defineCommand({
  command: 'export [files..]',
  describe: 'Write the tables (see hermes-stats sql --help) as Parquet files, one per table with its fixed schema, for pandas, Polars, Spark or DuckDB itself.',
  stream: true,
  options: (y) =>
    databaseOptions(y).option('parquet', {
      type: 'string',
      demandOption: true,
      group: 'Output:',
      describe: 'directory to write <table>.parquet files into (created when missing)',
    }),
  examples: [['$0 export --parquet out/ data/run1', 'out/trajectories.parquet, out/turns.parquet, ...']],
  run: (args, ctx) =>
    withAnalysisDatabase(args, ctx, async (db) => {
      await exportParquet(db.connection, resolve(ctx.io.cwd, args.parquet));
    }),
});

export const spec: CliSpec = {
  name: 'hermes-stats',
  summary: 'Normalise tool_stats on Hermes trajectories, summarise runs (mergeable statistics.json), and query and report on them with DuckDB.',
  commands: [streamStage, merge, sql, report, exportTables],
  epilog: `Summaries: "format": "hermes-stats-summary/1" files that validate against schemas/statistics.schema.json.\n\n${TABLES_HELP}`,
};

export function main(): void {
  runMain(spec);
}
