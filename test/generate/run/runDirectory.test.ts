import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Logger, UsageError } from '@hermes-datagen/core';
import { CheckpointState } from '@hermes-datagen/generate/internal/run/checkpoint.js';
import type { FailureRecord } from '@hermes-datagen/generate/internal/promptFailure.js';
import { FailureLog } from '@hermes-datagen/generate/internal/run/failureLog.js';
import { datasetHash, manifestDifferences, type Manifest } from '@hermes-datagen/generate/internal/run/manifest.js';
import { openRunDirectory, type OpenRunOptions, type RunDirectory } from '@hermes-datagen/generate/internal/run/runDirectory.js';
import { tempDir, writeFiles } from '../../util/cli.js';

function logger(): { log: Logger; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { log: new Logger('test', stream, { color: false }), text: () => text };
}

/** Opens the run as an invocation would, then gives its lock back as the invocation's end does. */
async function openAndRelease(...args: Parameters<typeof openRunDirectory>): Promise<RunDirectory> {
  const run = await openRunDirectory(...args);
  run.lock.release();
  return run;
}

const endpoint = { host: 'gw:443', model: 'm', key_fingerprint: 'abcdef01' };

function options(root: string, more: Partial<OpenRunOptions> = {}): OpenRunOptions {
  return {
    outputRoot: root,
    runName: 'run1',
    resume: false,
    forceResume: false,
    dataset: { paths: ['p.jsonl'], sha256: 'a'.repeat(64) },
    endpoint,
    toolRegistrySha256: 'b'.repeat(64),
    shard: null,
    settings: { batchSize: 10 },
    ...more,
  };
}

describe('the run directory', () => {
  it('is created with a manifest of one invocation, and a drawn seed when none is given', async () => {
    const root = tempDir();
    const run = await openAndRelease(options(root), logger().log);
    const manifest = JSON.parse(readFileSync(join(root, 'run1', 'run.json'), 'utf8')) as Manifest;
    expect(manifest).toMatchObject({ version: 1, run_name: 'run1', endpoint, dataset: { paths: ['p.jsonl'] }, seed: run.seed });
    expect(manifest.invocations).toHaveLength(1);
    expect(manifest.invocations[0]).toMatchObject({ resumed: false, settings: { batchSize: 10 } });
  });

  it('exists already: an error without --resume, never a silent mix', async () => {
    const root = tempDir();
    await openAndRelease(options(root), logger().log);
    await expect(openRunDirectory(options(root), logger().log)).rejects.toThrow(/exists already: add --resume/);
  });

  it("resumed: takes a batch file's entries from checkpoint.json, without opening it, when the file has the size recorded there; reads the others", async () => {
    const root = tempDir();
    const first = await openAndRelease(options(root), logger().log);
    const line = (id: string, sample: number): string => JSON.stringify({ id, prompt_index: 0, metadata: { sample } });
    // batch_0 is not JSON at all: were it opened, the resume would fail on it.
    const unread = 'x'.repeat(Buffer.byteLength(`${line('a', 0)}\n`));
    writeFiles(first.dir, { 'batch_0.jsonl': unread, 'batch_1.jsonl': `${line('b', 0)}\n${line('c', 0)}\n` });
    // The checkpoint says sample 5 where the file says 0: which one a resume used shows.
    const entry = (shard: string) => ({ prompt_index: 0, status: 'written', shard, sample: 5 });
    const checkpoint = {
      version: 1,
      run_name: 'run1',
      done: { a: entry('batch_0.jsonl'), b: entry('batch_1.jsonl') },
      // batch_1 has grown since (c was written after this checkpoint).
      files: { 'batch_0.jsonl': unread.length, 'batch_1.jsonl': Buffer.byteLength(`${line('b', 0)}\n`) },
      last_updated: new Date().toISOString(),
    };
    writeFileSync(join(first.dir, 'checkpoint.json'), JSON.stringify(checkpoint));
    const again = await openAndRelease(options(root, { resume: true }), logger().log);
    expect([...again.done.keys()]).toEqual(['a', 'b', 'c']);
    expect(again.done.get('a')?.sample).toBe(5);
    expect(again.done.get('b')?.sample).toBe(0);
    expect(again.done.get('c')?.sample).toBe(0);
    expect(Object.fromEntries(again.sizes)).toEqual({ 'batch_0.jsonl': unread.length, 'batch_1.jsonl': statSync(join(first.dir, 'batch_1.jsonl')).size });
    // It no longer holds what is done: it is written again at the end.
    expect(again.checkpoint).toBeUndefined();
  });

  it('resumed: keeps checkpoint.json as read when it accounts for every batch file to the byte', async () => {
    const root = tempDir();
    const first = await openAndRelease(options(root), logger().log);
    const text = `${JSON.stringify({ id: 'a', prompt_index: 0 })}\n`;
    writeFiles(first.dir, { 'batch_0.jsonl': text });
    const checkpoint = {
      version: 1,
      run_name: 'run1',
      done: { a: { prompt_index: 0, status: 'written', shard: 'batch_0.jsonl' } },
      files: { 'batch_0.jsonl': text.length },
      last_updated: new Date().toISOString(),
    };
    writeFileSync(join(first.dir, 'checkpoint.json'), JSON.stringify(checkpoint));
    expect((await openAndRelease(options(root, { resume: true }), logger().log)).checkpoint).toEqual(checkpoint);
    // A file the checkpoint does not know of: it is read, and the checkpoint is out of date.
    writeFiles(first.dir, { 'batch_1.jsonl': `${JSON.stringify({ id: 'b', prompt_index: 1 })}\n` });
    const later = await openAndRelease(options(root, { resume: true }), logger().log);
    expect([...later.done.keys()]).toEqual(['a', 'b']);
    expect(later.checkpoint).toBeUndefined();
  });

  it("resumed: cuts a torn root line together with its sub-agents' whole lines before it, which were written in the same append", async () => {
    const root = tempDir();
    const first = await openAndRelease(options(root), logger().log);
    const record = (id: string, parent?: string): string => JSON.stringify({ id, prompt_index: 0, metadata: parent ? { parent_id: parent, depth: 1 } : {} });
    const kept = `${record('a/d0.0', 'a')}\n${record('a')}\n`;
    writeFiles(first.dir, {
      'batch_0.jsonl': `${kept}${record('b/d0.0', 'b')}\n${record('b/d0.1', 'b')}\n{"id":"b","conv`,
      // A cut that fell right after a sub-agent's newline leaves no torn line, and the same orphan.
      'batch_1.jsonl': `${record('c')}\n${record('d/d0.0', 'd')}\n`,
    });
    const { log, text } = logger();
    const again = await openAndRelease(options(root, { resume: true }), log);
    expect([...again.done.keys()]).toEqual(['a/d0.0', 'a', 'c']);
    expect(readFileSync(join(first.dir, 'batch_0.jsonl'), 'utf8')).toBe(kept);
    expect(readFileSync(join(first.dir, 'batch_1.jsonl'), 'utf8')).toBe(`${record('c')}\n`);
    expect(again.repaired).toBe(true);
    expect(text()).toMatch(
      /batch_0.jsonl: its last line was cut off \(15 bytes, a run killed mid-write\); removed with the 2 sub-agent records before it \(b\/d0.0, b\/d0.1\)/,
    );
    expect(text()).toMatch(/batch_1.jsonl: 1 sub-agent record at its end without its root record \(d\/d0.0\), a run killed mid-write; removed/);
  });

  it('resumed: appends an invocation, keeps the first one and the seed, and reads what is done from the batch files', async () => {
    const root = tempDir();
    const first = await openAndRelease(options(root, { seed: 7 }), logger().log);
    writeFiles(first.dir, {
      'batch_0.jsonl': `${JSON.stringify({ id: 'a', prompt_index: 0, metadata: { sample: 0, row_hash: '0123456789abcdef' } })}\n${JSON.stringify({ id: 'b', prompt_index: 1, discarded: 'no_reasoning', prompt: 'x' })}\n{"id":"c","pro`,
    });
    const { log, text } = logger();
    const again = await openAndRelease(options(root, { resume: true, seed: 9 }), log);
    expect(again.seed).toBe(7);
    expect(again.manifest.invocations).toHaveLength(2);
    expect(again.manifest.invocations[0]).toEqual(first.invocation);
    expect([...again.done.keys()]).toEqual(['a', 'b']);
    expect(again.done.get('a')).toEqual({ prompt_index: 0, status: 'written', shard: 'batch_0.jsonl', sample: 0, row_hash: '0123456789abcdef' });
    expect(again.done.get('b')).toMatchObject({ status: 'discarded', reason: 'no_reasoning' });
    expect(text()).toMatch(/batch_0.jsonl: its last line was cut off \(14 bytes/);
    expect(text()).toMatch(/--seed 9 ignored/);
  });

  it('refuses a resume with another dataset, model, endpoint or key, saying what differs, unless forced', async () => {
    const root = tempDir();
    await openAndRelease(options(root), logger().log);
    const other = { dataset: { paths: ['q.jsonl'], sha256: 'c'.repeat(64) }, endpoint: { host: 'other:80', model: 'm2', key_fingerprint: '12345678' } };
    const refused = await openAndRelease(options(root, { resume: true, ...other }), logger().log).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UsageError);
    for (const what of [
      "the dataset's content",
      'the model (m2, not m)',
      'the endpoint (other:80, not gw:443)',
      'the API key (fingerprint 12345678, not abcdef01)',
    ]) {
      expect((refused as Error).message).toContain(what);
    }
    const forced = await openAndRelease(options(root, { resume: true, forceResume: true, ...other }), logger().log);
    expect(forced.invocation).toMatchObject({ forced: true });
    expect(forced.invocation.differences).toHaveLength(4);
    // The run keeps what it started with.
    expect(forced.manifest.endpoint).toEqual(endpoint);
  });

  it('refuses a resume as another shard', async () => {
    const root = tempDir();
    await openAndRelease(options(root, { shard: '0/4' }), logger().log);
    await expect(openRunDirectory(options(root, { resume: true, shard: '1/4' }), logger().log)).rejects.toThrow(/the shard \(1\/4, not 0\/4\)/);
    await expect(openRunDirectory(options(root, { resume: true, shard: null }), logger().log)).rejects.toThrow(/the shard \(all rows, not 0\/4\)/);
  });

  it('compares dataset content only where both sides could hash it (stdin cannot be read twice)', () => {
    const started = { dataset: { paths: ['-'], sha256: null }, endpoint, shard: null };
    expect(manifestDifferences(started, { dataset: { paths: ['p'], sha256: 'a'.repeat(64) }, endpoint, shard: null })).toEqual([]);
  });

  it('refuses a run name that is not one directory name', async () => {
    for (const runName of ['a/b', '..', '', 'a b']) {
      await expect(openRunDirectory(options(tempDir(), { runName }), logger().log)).rejects.toThrow(UsageError);
    }
  });
});

describe('datasetHash', () => {
  it('hashes the files in order and is null for stdin', async () => {
    const dir = tempDir();
    writeFiles(dir, { a: 'x', b: 'y' });
    const at = (path: string): string => join(dir, path);
    expect(await datasetHash(['a', 'b'], at)).toBe(await datasetHash(['a', 'b'], at));
    expect(await datasetHash(['a', 'b'], at)).not.toBe(await datasetHash(['b', 'a'], at));
    expect(await datasetHash(['-'], at)).toBeNull();
    await expect(datasetHash(['missing'], at)).rejects.toThrow(/cannot read missing: no such file/);
  });
});

describe('the checkpoint', () => {
  const entry = (prompt_index: number, shard = 'batch_0.jsonl') => [{ prompt_index, status: 'written' as const, shard }] as const;
  const ids = (path: string): string[] => Object.keys((JSON.parse(readFileSync(path, 'utf8')) as { done: object }).done);

  it('is written whole (temp + rename), at most once per interval, and always when asked', async () => {
    const dir = tempDir();
    let now = 10_000;
    const path = join(dir, 'checkpoint.json');
    const state = new CheckpointState(path, { run_name: 'r' }, 5_000, () => now);
    state.add([['a', entry(0)[0]]], 'batch_0.jsonl', 10);
    await state.maybeWrite();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      version: 1,
      run_name: 'r',
      done: { a: { status: 'written' } },
      files: { 'batch_0.jsonl': 10 },
    });
    state.add([['b', { prompt_index: 1, status: 'discarded', reason: 'no_reasoning', shard: 'batch_0.jsonl' }]], 'batch_0.jsonl', 7);
    now += 1_000;
    await state.maybeWrite();
    expect(ids(path)).toEqual(['a']);
    now += 5_000;
    await state.maybeWrite();
    expect(ids(path)).toEqual(['a', 'b']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ files: { 'batch_0.jsonl': 17 } });
    state.add([['c', entry(2, 'batch_1.jsonl')[0]]], 'batch_1.jsonl', 5);
    await state.write();
    expect(ids(path)).toEqual(['a', 'b', 'c']);
  });

  it('keeps the mark of a complete run through a write and a restore, and drops it with the next record', async () => {
    const path = join(tempDir(), 'checkpoint.json');
    const complete = { sha256: 'a'.repeat(64), samples: 1, max_samples: null, shard: null, records: 1 };
    const state = new CheckpointState(path, { run_name: 'r' }, 5_000);
    state.add([['a', entry(0)[0]]], 'batch_0.jsonl', 10);
    state.markComplete(complete);
    await state.write();
    const stored = JSON.parse(readFileSync(path, 'utf8'));
    expect(stored.complete).toEqual(complete);
    const resumed = new CheckpointState(path, { run_name: 'r' }, 5_000);
    resumed.restore(new Map([['a', entry(0)[0]]]), new Map([['batch_0.jsonl', 10]]), stored);
    expect(resumed.complete).toEqual(complete);
    resumed.add([['b', entry(1)[0]]], 'batch_0.jsonl', 10);
    expect(resumed.complete).toBeUndefined();
    await resumed.write();
    expect(JSON.parse(readFileSync(path, 'utf8')).complete).toBeUndefined();
  });

  it('waits longer between writes during the run as a write takes longer, so rewriting it stays a small share of the run', async () => {
    const dir = tempDir();
    const path = join(dir, 'checkpoint.json');
    // The clock moves 1 s at each reading while `step` is set: the write that reads it three times takes 2 s.
    let now = 0;
    let step = 1_000;
    const state = new CheckpointState(path, { run_name: 'r' }, 5_000, () => (now += step));
    state.add([['a', entry(0)[0]]], 'batch_0.jsonl', 10);
    await state.maybeWrite();
    const started = now - 2 * step;
    step = 0;
    state.add([['b', entry(1)[0]]], 'batch_0.jsonl', 10);
    // 100 times the 2 s the write took.
    now = started + 199_000;
    await state.maybeWrite();
    expect(ids(path)).toEqual(['a']);
    now = started + 200_000;
    await state.maybeWrite();
    expect(ids(path)).toEqual(['a', 'b']);
  });

  it('is not written again when it holds the state already: restored as read, or written since with no change', async () => {
    const dir = tempDir();
    const path = join(dir, 'checkpoint.json');
    const stored = { version: 1 as const, run_name: 'r', done: { a: entry(0)[0] }, files: { 'batch_0.jsonl': 10 }, last_updated: 't' };
    const state = new CheckpointState(path, { run_name: 'r' }, 5_000);
    state.restore(new Map(Object.entries(stored.done)), new Map(Object.entries(stored.files)), stored);
    await state.write();
    expect(existsSync(path)).toBe(false);
    state.add([['b', entry(1)[0]]], 'batch_0.jsonl', 5);
    await state.write();
    expect(ids(path)).toEqual(['a', 'b']);
    rmSync(path);
    await state.write();
    expect(existsSync(path)).toBe(false);
    // Another head (more valid rows read) is a change too.
    const head = { run_name: 'r', dataset: { path: 'p', valid_rows: 1 } };
    const other = new CheckpointState(path, head, 5_000);
    other.restore(new Map(), new Map(), { ...stored, dataset: { path: 'p', valid_rows: 1 } });
    head.dataset.valid_rows = 2;
    await other.write();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ dataset: { valid_rows: 2 } });
  });
});

describe('failures.jsonl', () => {
  const failure = (id: string, reason: string): FailureRecord => ({
    id,
    prompt_index: 0,
    sample: 0,
    source: 'p.jsonl',
    line: 1,
    error_class: 'rate-limited',
    retryable: true,
    reason,
    failed_at: 't',
  });

  it('keeps, per prompt still not done, its latest failure; a torn line is ignored', async () => {
    const dir = tempDir();
    const log = new FailureLog(dir);
    await log.add(failure('a', 'first'));
    await log.add(failure('b', 'b'));
    writeFileSync(join(dir, 'failures.jsonl'), `${readFileSync(join(dir, 'failures.jsonl'), 'utf8')}{"id":"c","pro`);
    const again = new FailureLog(dir);
    expect(await again.load()).toBe(2);
    await again.add(failure('a', 'second'));
    const left = await again.settle((id) => id === 'b');
    expect(left.map((f) => [f.id, f.reason])).toEqual([['a', 'second']]);
    expect(
      readFileSync(join(dir, 'failures.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as FailureRecord).id),
    ).toEqual(['a']);
  });

  it('is left as it is when it already lists exactly the prompts still failed', async () => {
    const dir = tempDir();
    const log = new FailureLog(dir);
    await log.add(failure('a', 'first'));
    await log.settle(() => false);
    const path = join(dir, 'failures.jsonl');
    const written = statSync(path).ino;
    const again = new FailureLog(dir);
    await again.load();
    expect((await again.settle(() => false)).map((f) => f.id)).toEqual(['a']);
    expect(statSync(path).ino).toBe(written);
    // Once its prompt is done, it is rewritten without it.
    const later = new FailureLog(dir);
    await later.load();
    expect(await later.settle(() => true)).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('is not created by loading', async () => {
    const dir = tempDir();
    expect(await new FailureLog(dir).load()).toBe(0);
    expect(existsSync(join(dir, 'failures.jsonl'))).toBe(false);
  });
});
