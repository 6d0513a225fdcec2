// --dataset: the prompts the run was made from. Its valid rows give prompt_index's range (upstream
// counts valid rows from 0, docs/record-format.md#prompts), each row's prompt id the record ids, and its bytes the SHA-256
// that run.json and checkpoint.json record.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promptId, readRecords, UsageError, type OnError, type PromptRow, type Reject } from '@hermes-datagen/core';

export interface Dataset {
  readonly path: string;
  readonly rows: number;
  /** Each valid row's prompt id, by prompt_index. */
  readonly rowIds: readonly string[];
  /** SHA-256 of the file's bytes, hex. */
  readonly sha256: string;
}

export interface DatasetReadOptions {
  readonly onError: OnError;
  readonly maxLineBytes: number;
  readonly signal: AbortSignal;
  /** A bad line under --on-error skip: it is not a row, as in hermes-generate. */
  readonly onReject: (reject: Reject) => void | Promise<void>;
}

export async function readDataset(path: string, cwd: string, options: DatasetReadOptions): Promise<Dataset> {
  const file = resolve(cwd, path);
  try {
    await access(file);
  } catch (err) {
    throw new UsageError(`cannot read --dataset ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): check the path`);
  }
  const rowIds: string[] = [];
  for await (const batch of readRecords([path], undefined, cwd, { ...options, schema: 'prompt' })) {
    for (const record of batch) rowIds.push(promptId(record.value as PromptRow, rowIds.length));
  }
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return { path, rows: rowIds.length, rowIds, sha256: hash.digest('hex') };
}
