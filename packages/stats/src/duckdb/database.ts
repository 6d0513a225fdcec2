// The embedded DuckDB the analysis commands run on: a scratch database for one command, or a --db file
// kept for repeated queries. Offline by construction (json and parquet are linked into the library, so
// no extension is ever downloaded), with a memory limit and a spill directory so that inputs of any
// size load and query in bounded memory. The scratch database is a file too, not ':memory:': DuckDB
// keeps in-memory tables uncompressed (about 1.2 KB per trajectory of the bench corpus, against 0.16 KB
// in a file), and a file's pages can be dropped from memory without being written out first.
import { closeSync, existsSync, mkdtempSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '@hermes-datagen/core';

export interface DatabaseSettings {
  /** DuckDB memory_limit, e.g. '256MB'; past it DuckDB spills to a temporary directory. */
  readonly memoryLimit: string;
  readonly threads: number;
  /** Where relative file names in SQL (read_parquet('x.parquet')) are found: the command's working directory. */
  readonly cwd: string;
}

/**
 * Defaults that keep a report over gigabytes of input in a few hundred MB: the tables hold small rows
 * (no conversation text), and what does not fit in the limit spills to disk. A few threads are
 * plenty for aggregates over them, and leave the machine to the other stages of a pipeline.
 */
export const DEFAULT_MEMORY_LIMIT = '256MB';
export const DEFAULT_THREADS = Math.min(4, availableParallelism());

export class AnalysisDatabase {
  private constructor(
    private readonly instance: DuckDBInstance,
    public readonly connection: DuckDBConnection,
    /** Where DuckDB spills (and the scratch database lives); removed on close. */
    private readonly spillDir: string,
  ) {}

  /** A scratch database removed on close (path undefined), or the database file at path, created when missing. */
  public static async open(path: string | undefined, settings: DatabaseSettings): Promise<AnalysisDatabase> {
    checkSettings(settings);
    const spillDir = mkdtempSync(join(tmpdir(), 'hermes-stats-duckdb-'));
    try {
      const instance = await DuckDBInstance.create(path ?? join(spillDir, 'scratch.duckdb'), {
        memory_limit: settings.memoryLimit,
        threads: String(settings.threads),
        temp_directory: spillDir,
        file_search_path: settings.cwd,
        autoinstall_known_extensions: 'false',
        autoload_known_extensions: 'false',
      });
      return new AnalysisDatabase(instance, await instance.connect(), spillDir);
    } catch (error) {
      rmSync(spillDir, { recursive: true, force: true });
      throw openError(error, path);
    }
  }

  /** An existing --db file, for queries without inputs. */
  public static async openExisting(path: string, settings: DatabaseSettings): Promise<AnalysisDatabase> {
    if (!existsSync(path)) {
      throw new UsageError(`${path} does not exist: build it first by giving inputs with --db (e.g. hermes-stats report --db ${path} RUN_DIR)`);
    }
    return AnalysisDatabase.open(path, settings);
  }

  public close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
    rmSync(this.spillDir, { recursive: true, force: true });
  }
}

/**
 * Builds the --db file at `path` from scratch with `build`, then opens it: the file is written under a
 * temporary name and renamed into place only when the build succeeded, so a failed load leaves the
 * previous file as it was.
 */
export async function buildDatabaseFile(path: string, settings: DatabaseSettings, build: (db: AnalysisDatabase) => Promise<void>): Promise<AnalysisDatabase> {
  if (existsSync(path) && !isDuckDbFile(path)) {
    throw new UsageError(`${path} exists and is not a DuckDB database, so --db will not replace it: name a new file or one hermes-stats built`);
  }
  const temp = `${path}.tmp-${process.pid}`;
  const removeTemp = (): void => {
    rmSync(temp, { force: true });
    rmSync(`${temp}.wal`, { force: true });
  };
  removeTemp();
  const db = await AnalysisDatabase.open(temp, settings);
  try {
    await build(db);
    await db.connection.run('CHECKPOINT');
  } catch (error) {
    db.close();
    removeTemp();
    throw error;
  }
  db.close();
  renameSync(temp, path);
  rmSync(`${path}.wal`, { force: true });
  return AnalysisDatabase.open(path, settings);
}

/** DuckDB database files carry "DUCK" at byte 8. */
function isDuckDbFile(path: string): boolean {
  const head = Buffer.alloc(12);
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, head, 0, 12, 0) === 12 && head.toString('latin1', 8, 12) === 'DUCK';
  } finally {
    closeSync(fd);
  }
}

// DuckDB answers a bad setting with a bare "Failed to set config", so the settings are checked first.
const SIZE = /^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

function checkSettings(settings: DatabaseSettings): void {
  if (!SIZE.test(settings.memoryLimit.trim())) throw new UsageError(`--memory-limit takes a size such as 256MB or 2GB (got ${settings.memoryLimit})`);
  if (!Number.isInteger(settings.threads) || settings.threads < 1)
    throw new UsageError(`--threads takes a whole number of at least 1 (got ${settings.threads})`);
}

function openError(error: unknown, path: string | undefined): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (path !== undefined && /not a valid DuckDB database file/i.test(message)) {
    return new UsageError(`${path} is not a DuckDB database: give --db a file hermes-stats built, or a new name`);
  }
  if (path !== undefined && /Could not set lock/i.test(message)) {
    return new UsageError(`${path} is open in another process (DuckDB allows one writer): close it there, or use another --db file`);
  }
  return error instanceof Error ? error : new Error(message);
}
