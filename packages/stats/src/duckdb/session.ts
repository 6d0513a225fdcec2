// The database an analysis command works on: its inputs loaded into a fresh scratch database, or
// into the --db file (rebuilt from the inputs), or, with --db and no inputs, the file as it was left.
import { resolve } from 'node:path';
import type { RunContext } from '@hermes-datagen/core';
import { AnalysisDatabase, buildDatabaseFile, type DatabaseSettings } from './database.js';
import { resolveInputs } from './inputs.js';
import { loadInputs } from './load.js';

export interface AnalysisArgs {
  /** RUN_DIR_OR_FILES operands (none: stdin, or the --db file as it is). */
  files: string[];
  db?: string;
  memoryLimit: string;
  threads: number;
}

export async function withAnalysisDatabase<T>(args: AnalysisArgs, ctx: RunContext, use: (db: AnalysisDatabase) => Promise<T>): Promise<T> {
  const db = await openAnalysisDatabase(args, ctx);
  try {
    return await use(db);
  } finally {
    db.close();
  }
}

async function openAnalysisDatabase(args: AnalysisArgs, ctx: RunContext): Promise<AnalysisDatabase> {
  const settings: DatabaseSettings = { memoryLimit: args.memoryLimit, threads: args.threads, cwd: ctx.io.cwd };
  const path = args.db === undefined ? undefined : resolve(ctx.io.cwd, args.db);
  if (path !== undefined && args.files.length === 0) return AnalysisDatabase.openExisting(path, settings);

  const inputs = resolveInputs(args.files, ctx.io.cwd);
  for (const file of inputs.skipped) {
    ctx.log.warn(`${file} is not loaded: it is the merge of the batch files named beside it, which are (each record is loaded once)`);
  }
  // ctx.readRecords reads args.files: the files found in run directories take the operands' place.
  args.files = [...inputs.files];
  const load = async (db: AnalysisDatabase): Promise<void> => {
    const counts = await loadInputs(db, ctx, inputs);
    ctx.stats.add('trajectories', counts.trajectories);
    ctx.stats.add('tombstones', counts.discarded);
  };
  if (path !== undefined) return buildDatabaseFile(path, settings, load);
  const db = await AnalysisDatabase.open(undefined, settings);
  try {
    await load(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
