// Opening `<output-root>/<run-name>/` for an invocation: a new run creates it and its manifest; an
// existing one is an error without --resume (never a silent mix of two runs), and with --resume its
// manifest is compared with this invocation (a different dataset, model, endpoint or key is refused
// unless --force-resume), its batch files' torn last lines are cut off, and what is done is read back
// from the batch files themselves, keyed by record id.
import { randomInt } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError, validator, type Checkpoint, type CheckpointEntry, type Logger } from '@hermes-datagen/core';
import { CHECKPOINT_FILE } from './checkpoint.js';
import { listBatchFiles, readBatchFile, repairTornTail, type BatchFile } from './batchFiles.js';
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
}

export interface RunDirectory {
  readonly dir: string;
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
  let repaired = false;
  const lines = new Map<string, number>();
  for (const file of files) {
    const { torn, lines: whole } = await repairTornTail(file);
    lines.set(file.name, whole);
    repaired ||= torn !== undefined;
    if (torn) log.warn(`${file.path}: its last line was cut off (${torn.bytes} bytes, a run killed mid-write); removed, that prompt runs again`);
  }
  const checkpointed = await checkpointedRecords(join(dir, CHECKPOINT_FILE), lines);
  return { dir, manifest, invocation, seed: manifest.seed, files, repaired, done: await doneRecords(files, checkpointed, log) };
}

/**
 * checkpoint.json's entries of each batch file whose lines it accounts for exactly: an entry is set
 * only after its line is fsynced, so as many entries as the file has lines are those lines, and the
 * file need not be parsed again. A file with more lines (written after the last checkpoint), or a
 * missing or invalid checkpoint, is read from the file itself.
 */
async function checkpointedRecords(path: string, lines: ReadonlyMap<string, number>): Promise<Map<string, [string, CheckpointEntry][]>> {
  const byFile = new Map<string, [string, CheckpointEntry][]>();
  let checkpoint: unknown;
  try {
    checkpoint = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return byFile;
  }
  if (validator('checkpoint')(checkpoint) !== null) return byFile;
  for (const [id, entry] of Object.entries((checkpoint as Checkpoint).done)) {
    if (entry.shard === undefined) continue;
    const entries = byFile.get(entry.shard);
    if (entries) entries.push([id, entry]);
    else byFile.set(entry.shard, [[id, entry]]);
  }
  for (const [name, entries] of byFile) if (entries.length !== lines.get(name)) byFile.delete(name);
  return byFile;
}

/** Every record and tombstone with an id in the batch files. */
async function doneRecords(
  files: readonly BatchFile[],
  checkpointed: ReadonlyMap<string, [string, CheckpointEntry][]>,
  log: Logger,
): Promise<Map<string, CheckpointEntry>> {
  const done = new Map<string, CheckpointEntry>();
  for (const file of files) {
    const known = checkpointed.get(file.name);
    if (known) {
      for (const [id, entry] of known) if (!done.has(id)) done.set(id, entry);
      continue;
    }
    for (const { value, place } of await readBatchFile(file)) {
      const id = value['id'];
      if (typeof id !== 'string') continue;
      const earlier = done.get(id);
      if (earlier) {
        log.warn(`record id ${id} is in ${earlier.shard ?? '?'} and again here; the first is kept as done`, place, 'duplicate-id');
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
  }
  return done;
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
