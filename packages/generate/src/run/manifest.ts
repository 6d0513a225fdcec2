// run.json: what a run is (dataset, endpoint, model, key fingerprint, tool registry, seed, settings)
// and the history of its invocations. A resume appends an invocation and never rewrites an earlier
// one; it is refused when the dataset or endpoint differ from what the run started with (upstream
// batch runs could resume with another key or dataset and silently mix them; docs/upstream-differences.md#resume).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { InputError, VERSION, writeJsonAtomic } from '@hermes-datagen/core';

export const MANIFEST_FILE = 'run.json';

export interface DatasetIdentity {
  /** The input operands as given ("-" for stdin). */
  readonly paths: readonly string[];
  /** SHA-256 of the inputs' bytes in order; null when read from stdin (it cannot be read twice). */
  readonly sha256: string | null;
}

export interface EndpointIdentity {
  readonly host: string;
  readonly model: string;
  readonly key_fingerprint: string | null;
}

export interface Invocation {
  readonly started_at: string;
  ended_at?: string;
  readonly resumed: boolean;
  readonly forced: boolean;
  /** Only when --force-resume went past differences: what differed. */
  readonly differences?: readonly string[];
  readonly hermes_datagen: string;
  readonly node: string;
  readonly host: string;
  readonly pid: number;
  readonly settings: Readonly<Record<string, unknown>>;
  exit_code?: number;
  records_written?: number;
  tombstones_written?: number;
  prompts_failed?: number;
}

export interface Manifest {
  readonly version: 1;
  readonly run_name: string;
  readonly created_at: string;
  readonly dataset: DatasetIdentity;
  readonly endpoint: EndpointIdentity;
  readonly tool_registry_sha256: string;
  readonly seed: number;
  /** --shard i/N of the run, null for all rows. */
  readonly shard: string | null;
  readonly invocations: Invocation[];
}

/** SHA-256 of the files' bytes in order, streamed; null when one of them is stdin. */
export async function datasetHash(paths: readonly string[], resolvePath: (path: string) => string): Promise<string | null> {
  if (paths.length === 0 || paths.includes('-')) return null;
  const hash = createHash('sha256');
  for (const path of paths) {
    try {
      for await (const chunk of createReadStream(resolvePath(path))) hash.update(chunk as Buffer);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new InputError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  }
  return hash.digest('hex');
}

export function newInvocation(settings: Readonly<Record<string, unknown>>, resumed: boolean, differences: readonly string[] = []): Invocation {
  return {
    started_at: new Date().toISOString(),
    resumed,
    forced: differences.length > 0,
    ...(differences.length > 0 ? { differences } : {}),
    hermes_datagen: VERSION,
    node: process.version,
    host: hostname(),
    pid: process.pid,
    settings,
  };
}

/** The manifest in `path`, or undefined when there is none (a run killed before writing it). */
export async function readManifest(path: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Manifest;
    if (value.version !== 1 || !Array.isArray(value.invocations)) throw new Error('not a hermes-generate run manifest (version 1)');
    return value;
  } catch (error) {
    throw new InputError(`${path} is not a readable run manifest: ${(error as Error).message}`);
  }
}

export function writeManifest(path: string, manifest: Manifest): Promise<void> {
  return writeJsonAtomic(path, manifest);
}

/** What differs between the run as it started and this invocation, one phrase each; [] when nothing. */
export function manifestDifferences(
  started: Pick<Manifest, 'dataset' | 'endpoint' | 'shard'>,
  now: { dataset: DatasetIdentity; endpoint: EndpointIdentity; shard: string | null },
): string[] {
  const differences: string[] = [];
  const { dataset, endpoint } = now;
  if ((started.shard ?? null) !== now.shard) differences.push(`the shard (${now.shard ?? 'all rows'}, not ${started.shard ?? 'all rows'})`);
  if (started.dataset.sha256 !== null && dataset.sha256 !== null && started.dataset.sha256 !== dataset.sha256) {
    differences.push(`the dataset's content (${dataset.paths.join(' ')} is not the ${started.dataset.paths.join(' ')} the run started with)`);
  }
  if (started.endpoint.model !== endpoint.model) differences.push(`the model (${endpoint.model}, not ${started.endpoint.model})`);
  if (started.endpoint.host !== endpoint.host) differences.push(`the endpoint (${endpoint.host}, not ${started.endpoint.host})`);
  if (started.endpoint.key_fingerprint !== endpoint.key_fingerprint) {
    differences.push(`the API key (fingerprint ${endpoint.key_fingerprint ?? 'none'}, not ${started.endpoint.key_fingerprint ?? 'none'})`);
  }
  return differences;
}
