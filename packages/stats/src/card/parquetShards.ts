// The dataset's Parquet files, DIR/data/train-0000N-of-0000M.parquet (the Hub's shard naming), written with
// the embedded DuckDB in one fixed schema. Rows stream to a JSONL file per shard in a scratch directory
// beside DIR/data (at most --rows-per-file rows each, so memory stays bounded); at the end, when M is known,
// DuckDB parses each with the declared column types and writes it as zstd Parquet. Shards of an earlier
// card in DIR/data are replaced only once every new file is written, so a failed run leaves the old set.
import { createWriteStream, mkdirSync, readdirSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdentifier, quoteLiteral } from '../duckdb/tables.js';
import type { DatasetColumn } from './datasetRows.js';

const SHARD = /^train-\d{5}-of-\d{5}\.parquet$/;
/** read_json's smallest limit on one row; DuckDB's read buffers are a few times the limit, so it is kept near the longest row. */
const MIN_ROW_LIMIT = 1024 * 1024;

export function shardName(index: number, count: number): string {
  return `train-${String(index).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.parquet`;
}

export class ParquetShards {
  private readonly scratch: string;
  private readonly parts: string[] = [];
  private out: WriteStream | undefined;
  private rowsInPart = 0;
  private longestRow = 0;
  /** A write that failed (a full disk): the run stops at the next row. */
  private failure: Error | undefined;
  public rows = 0;

  public constructor(
    private readonly dir: string,
    private readonly columns: readonly DatasetColumn[],
    private readonly rowsPerFile: number,
  ) {
    this.scratch = join(dir, `.card-tmp-${process.pid}`);
    rmSync(this.scratch, { recursive: true, force: true });
    mkdirSync(this.scratch, { recursive: true });
  }

  public async add(row: Record<string, unknown>): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.out === undefined || this.rowsInPart === this.rowsPerFile) await this.nextPart();
    this.rowsInPart += 1;
    this.rows += 1;
    const line = `${JSON.stringify(row)}\n`;
    this.longestRow = Math.max(this.longestRow, Buffer.byteLength(line));
    if (!(this.out as WriteStream).write(line)) await once(this.out as WriteStream, 'drain');
  }

  /** Writes the Parquet files into DIR/data (replacing an earlier card's) and returns their names. */
  public async finish(connection: DuckDBConnection): Promise<string[]> {
    await this.closePart();
    // No rows still makes one (empty) file, so the folder always has the schema.
    if (this.parts.length === 0) this.parts.push('');
    const names = this.parts.map((_, i) => shardName(i, this.parts.length));
    const columns = this.columns.map((c) => `${quoteIdentifier(c.name)} ${c.type}`).join(', ');
    const jsonColumns = `{${this.columns.map((c) => `${quoteLiteral(c.name)}: ${quoteLiteral(c.type)}`).join(', ')}}`;
    for (const [i, part] of this.parts.entries()) {
      await connection.run(`CREATE OR REPLACE TEMP TABLE card_shard (${columns})`);
      if (part !== '') {
        await connection.run(
          `INSERT INTO card_shard SELECT * FROM read_json(${quoteLiteral(part)}, format = 'newline_delimited', columns = ${jsonColumns}, maximum_object_size = ${Math.max(MIN_ROW_LIMIT, this.longestRow)})`,
        );
      }
      await connection.run(`COPY card_shard TO ${quoteLiteral(join(this.scratch, names[i] as string))} (FORMAT parquet, COMPRESSION zstd)`);
    }
    await connection.run('DROP TABLE card_shard');
    const data = join(this.dir, 'data');
    mkdirSync(data, { recursive: true });
    for (const old of readdirSync(data).filter((name) => SHARD.test(name))) rmSync(join(data, old));
    for (const name of names) renameSync(join(this.scratch, name), join(data, name));
    this.discard();
    return names;
  }

  /** Removes the scratch directory (also after a failure). */
  public discard(): void {
    this.out?.destroy();
    rmSync(this.scratch, { recursive: true, force: true });
  }

  private async nextPart(): Promise<void> {
    await this.closePart();
    const path = join(this.scratch, `part-${this.parts.length}.jsonl`);
    this.parts.push(path);
    this.out = createWriteStream(path);
    this.out.on('error', (error) => {
      this.failure ??= error;
    });
    this.rowsInPart = 0;
  }

  private async closePart(): Promise<void> {
    if (this.out === undefined) return;
    const out = this.out;
    this.out = undefined;
    out.end();
    await once(out, 'finish');
    if (this.failure) throw this.failure;
  }
}
