// Opening `<output-root>/<run-name>/` for an invocation, under its lock (runLock.ts): a new run creates it and its manifest; an
// existing one is an error without --resume (never a silent mix of two runs), and with --resume its
// manifest is compared with this invocation (a different dataset, model, endpoint or key is refused
// unless --force-resume), its batch files' torn last lines are cut off, and what is done is read back,
// keyed by record id: from checkpoint.json for the files it accounts for to the byte (which are only
// stat'ed), from the batch files themselves for the others.
import { randomInt } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError, validator, type Checkpoint, type CheckpointEntry, type Logger } from '@hermes-datagen/core';
import { CHECKPOINT_FILE } from './checkpoint.js';
import { removeDeadWorkspaces, removeLeftovers } from './runLeftovers.js';
import { RunLock } from './runLock.js';
import { listBatchFiles, readBatchFile, repairTornTail, type BatchFile, type BatchLine, type TailCut } from './batchFiles.js';
import {
  MANIFEST_FILE,
  manifestDifferences,
  newInvocation,
  readManifest,
  writeManifest,
  type DatasetIdentity,
  type EndpointIdentity,
  type Invocation,
  type Manifest,
} from './manifest.js';

export interface OpenRunOptions {
  readonly outputRoot: string;
  readonly runName: string;
  readonly resume: boolean;
  readonly forceResume: boolean;
  readonly dataset: DatasetIdentity;
  readonly endpoint: EndpointIdentity;
  readonly toolRegistrySha256: string;
  /** --shard as given (i/N), null for all rows. */
  readonly shard: string | null;
  /** --seed; drawn for a new run without one, taken from the manifest on resume. */
  readonly seed?: number | undefined;
  /** This invocation's flags, recorded in the manifest. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The workspace root this invocation made for itself (the default one), named in its lock. */
  readonly workspaceRoot?: string | undefined;
}

export interface RunDirectory {
  readonly dir: string;
  /** Held from the opening until the invocation has written run.json; released by its caller. */
  readonly lock: RunLock;
  readonly manifest: Manifest;
  /** This invocation's entry in manifest.invocations (updated in place, then saved). */
  readonly invocation: Invocation;
  readonly seed: number;
  /** Batch files present before this invocation, in number order. */
  readonly files: readonly BatchFile[];
  /** A batch file's torn last line was cut off on opening. */
  readonly repaired: boolean;
  /** Record id -> its entry, from the batch files. */
  readonly done: Map<string, CheckpointEntry>;
  /** Batch file name -> its size, for each file every line of which has its entry in `done`. */
  readonly sizes: Map<string, number>;
  /** checkpoint.json as read, when it holds exactly `done` and `sizes` (it need not be written again). */
  readonly checkpoint?: Checkpoint | undefined;
}

const NAME = /^[A-Za-z0-9._-]+$/;

export async function openRunDirectory(options: OpenRunOptions, log: Logger): Promise<RunDirectory> {
  if (!NAME.test(options.runName) || options.runName === '.' || options.runName === '..') {
    throw new UsageError(`--run-name must be a directory name of letters, digits, '.', '_' and '-', got ${JSON.stringify(options.runName)}`);
  }
  const dir = join(options.outputRoot, options.runName);
  const exists = await isDirectory(dir);
  if (exists && !options.resume) {
    throw new UsageError(`the run directory ${dir} exists already: add --resume to continue that run, or choose another --run-name`);
  }
  await mkdir(dir, { recursive: true });
  const lock = RunLock.acquire(dir, options.workspaceRoot);
  try {
    if (exists) await removeLeftovers(dir, log);
    const dead = lock.takenOver;
    if (dead?.workspaces !== undefined) await removeDeadWorkspaces(dead.workspaces, dead.pid, log);
    return await openLocked(dir, lock, options, exists, log);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function openLocked(dir: string, lock: RunLock, options: OpenRunOptions, exists: boolean, log: Logger): Promise<RunDirectory> {
  const manifestPath = join(dir, MANIFEST_FILE);
  const started = exists ? await readManifest(manifestPath) : undefined;
  if (exists && started === undefined) log.info(`${dir} has no ${MANIFEST_FILE} (a run stopped as it began): starting its manifest now`);
  let manifest: Manifest;
  let invocation: Invocation;
  if (started) {
    const differences = manifestDifferences(started, options);
    if (differences.length > 0 && !options.forceResume) {
      throw new UsageError(
        `--resume refused: this invocation differs from the run in ${dir} in ${differences.join('; ')}. Resume with what the run started with, or add --force-resume to mix them knowingly`,
      );
    }
    if (differences.length > 0) log.warn(`--force-resume: continuing ${dir} although ${differences.join('; ')}`);
    if (options.seed !== undefined && options.seed !== started.seed) {
      log.warn(`--seed ${options.seed} ignored: the run's toolset sampling continues with its seed ${started.seed}`);
    }
    invocation = newInvocation(options.settings, true, differences);
    manifest = { ...started, invocations: [...started.invocations, invocation] };
  } else {
    invocation = newInvocation(options.settings, options.resume && exists);
    manifest = {
      version: 1,
      run_name: options.runName,
      created_at: invocation.started_at,
      dataset: options.dataset,
      endpoint: options.endpoint,
      tool_registry_sha256: options.toolRegistrySha256,
      // Drawn when not given, and recorded, so any run can be repeated.
      seed: options.seed ?? randomInt(2 ** 31),
      shard: options.shard,
      invocations: [invocation],
    };
  }
  await writeManifest(manifestPath, manifest);

  const files = await listBatchFiles(dir);
  return { dir, lock, manifest, invocation, seed: manifest.seed, files, ...(await readBack(files, await readCheckpoint(join(dir, CHECKPOINT_FILE)), log)) };
}

/** checkpoint.json, or undefined when it is missing or not valid (the batch files are read instead). */
async function readCheckpoint(path: string): Promise<Checkpoint | undefined> {
  try {
    const checkpoint: unknown = JSON.parse(await readFile(path, 'utf8'));
    return validator('checkpoint')(checkpoint) === null ? (checkpoint as Checkpoint) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What is done, file by file. A file whose size is the one checkpoint.json recorded for it holds
 * exactly the lines the checkpoint's entries for it describe (a size is recorded only when every
 * line of the file had its entry, each entry set only after its line was fsynced): those entries
 * are taken and the file is not opened. Any other file (written after the last checkpoint, cut by
 * a kill, or with no checkpoint) has its torn tail cut off and is read record by record.
 */
async function readBack(
  files: readonly BatchFile[],
  checkpoint: Checkpoint | undefined,
  log: Logger,
): Promise<Pick<RunDirectory, 'done' | 'sizes' | 'checkpoint' | 'repaired'>> {
  const sizes = new Map<string, number>();
  // Synchronous: a thousand files are stat'ed in a few ms, and each await of the thread pool costs more than the call.
  for (const file of files) {
    const bytes = statSync(file.path).size;
    if (checkpoint?.files?.[file.name] === bytes) sizes.set(file.name, bytes);
  }
  // Whether checkpoint.json holds exactly what is read back, so that it need not be written again:
  // every file found at its size, every entry of such a file, no file of it gone.
  let current = checkpoint !== undefined && sizes.size === files.length && Object.keys(checkpoint.files ?? {}).length === sizes.size;
  // One pass over the entries, no copies: for a large run they are most of what a resume holds.
  const done = new Map<string, CheckpointEntry>();
  for (const id in checkpoint?.done) {
    const entry = checkpoint.done[id]!;
    if (entry.shard !== undefined && sizes.has(entry.shard)) done.set(id, entry);
    else current = false;
  }
  let repaired = false;
  for (const file of files) {
    if (sizes.has(file.name)) continue;
    const { cut, bytes } = await repairTornTail(file);
    if (cut) {
      repaired = true;
      log.warn(`${file.path}: ${cutMessage(cut)}, that prompt runs again`);
    }
    if (readRecords(file, await readBatchFile(file), done, log)) sizes.set(file.name, bytes);
  }
  return { done, sizes, repaired, ...(current ? { checkpoint } : {}) };
}

function cutMessage(cut: TailCut): string {
  const records = `${cut.orphans.length} sub-agent record${cut.orphans.length === 1 ? '' : 's'}`;
  const ids = cut.orphans.join(', ');
  if (cut.tornBytes === 0) return `${records} at its end without its root record (${ids}), a run killed mid-write; removed`;
  return `its last line was cut off (${cut.tornBytes} bytes, a run killed mid-write); removed${cut.orphans.length === 0 ? '' : ` with the ${records} before it (${ids})`}`;
}

/** Adds the records and tombstones of one file's lines to `done`; true when every line gave one. */
function readRecords(file: BatchFile, lines: readonly BatchLine[], done: Map<string, CheckpointEntry>, log: Logger): boolean {
  let all = true;
  for (const { value, place } of lines) {
    const id = value['id'];
    if (typeof id !== 'string') {
      all = false;
      continue;
    }
    const earlier = done.get(id);
    if (earlier) {
      log.warn(`record id ${id} is in ${earlier.shard ?? '?'} and again here; the one in ${earlier.shard ?? '?'} is kept as done`, place, 'duplicate-id');
      all = false;
      continue;
    }
    const metadata = (value['metadata'] ?? {}) as Record<string, unknown>;
    const discarded = value['discarded'];
    done.set(id, {
      prompt_index: typeof value['prompt_index'] === 'number' ? value['prompt_index'] : 0,
      status: typeof discarded === 'string' ? 'discarded' : 'written',
      ...(typeof discarded === 'string' ? { reason: discarded } : {}),
      shard: file.name,
      ...(typeof metadata['sample'] === 'number' ? { sample: metadata['sample'] } : {}),
      ...(typeof metadata['row_hash'] === 'string' ? { row_hash: metadata['row_hash'] } : {}),
    });
  }
  return all;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isDirectory()) throw new UsageError(`${path} exists and is not a directory: choose another --run-name or --output-root`);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
