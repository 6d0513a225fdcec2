// A full disk under a run directory, for real: the run's output root is a small tmpfs mounted in a
// private mount namespace (unshare -rm, as diskFull.test.ts), which fills while hermes-generate writes
// its batch files, checkpoint, journal, merge or run.json. Each is an output failure (exit 74) naming
// the file that could not be written, never exit 70 "a bug"; every record it streamed is on disk, the
// batch files hold whole lines only, no temp file is left, and once the file system is given room a
// --resume finishes the run with each record exactly once. A limit of file size (ulimit -f) gives the
// same for EFBIG.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, jsonl, parseJsonl, runCommand, tempDir, writeFiles } from '../util/cli.js';
import { expectNoSecret, TEST_MODEL } from '../util/generate.js';
import { expectRunInvariants, type RunContents } from '../util/runDirectory.js';
import { TEST_API_KEY } from '../util/secrets.js';

/** 200 prompts of about 1.5 KB: a run of about 1.7 MB of batch files, and as much again merged. */
const prompts = Array.from({ length: 200 }, (_, i) => ({ id: `p${i}`, prompt: `task ${i} ${'x'.repeat(1500)}` }));

interface DiskFullRun {
  /** The invocation on the full file system. */
  readonly full: { code: number; stdout: string; stderr: string };
  /** What it left in the run directory (hidden files included), before the resume. */
  readonly left: string[];
  /** The --resume once the file system has room. */
  readonly resumed: { code: number; stdout: string; stderr: string };
  /** The run directory after the resume (a copy: the file system goes with its namespace). */
  readonly runDir: string;
}

/** The scratch directory with the prompts, and the command line of the run in it (output root `full`). */
async function prepare(): Promise<{ dir: string; generate: string[] }> {
  const server = await scriptedEndpoint({ apiKey: TEST_API_KEY });
  const dir = tempDir('hermes-disk-full-');
  writeFiles(dir, { 'prompts.jsonl': jsonl(prompts) });
  const generate = [
    ...[process.execPath, binPath('generate', 'hermes-generate'), 'prompts.jsonl', '--base-url', server.url, '--model', TEST_MODEL],
    ...['--run-name', 'r', '--output-root', 'full', '--toolsets', 'todo', '--workspace-root', join(dir, 'workspaces')],
    // A namespace of unshare -r maps no user but root: the sandbox's own user cannot be set up in it.
    ...['--sandbox', 'none'],
  ];
  return { dir, generate };
}

/**
 * Runs `script` (sh, the run's command line as "$@") in the scratch directory; it leaves the two
 * invocations' streams and codes in full.* and resumed.*, the listing of the stopped run in left.txt
 * and a copy of the resumed run in after/.
 */
async function runScript(dir: string, generate: string[], script: string, wrapper: string[]): Promise<DiskFullRun> {
  const shell = await runCommand(wrapper[0]!, [...wrapper.slice(1), '/bin/sh', '-c', script, ...generate], {
    cwd: dir,
    env: { HERMES_API_KEY: TEST_API_KEY },
  });
  expect(shell.code, `the file system could not be set up (unshare -rm, mount -t tmpfs, ulimit -f): ${shell.stderr}`).toBe(0);
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  const result = (name: string) => ({ code: Number(read(`${name}.code`)), stdout: read(`${name}.out`), stderr: read(`${name}.err`) });
  const run = { full: result('full'), left: read('left.txt').split('\n').filter(Boolean), resumed: result('resumed'), runDir: join(dir, 'after') };
  expectNoSecret(dir, run.full);
  expectNoSecret(dir, run.resumed);
  return run;
}

/** What follows the stopped invocation: its listing, room again, the resume and its copy. */
const RESUME = `ls -A full/r > left.txt 2>/dev/null
rm -f full/pad
mount -o remount,size=64m full 2>/dev/null || [ -z "$TMPFS" ] || exit 98
"$@" --resume > resumed.out 2> resumed.err
echo $? > resumed.code
cp -a full/r after`;

/**
 * The 200 prompts with the output root on a tmpfs of `size` (filled to the brim first with
 * `filled`); then the file system gets 64 MB and the run is resumed.
 */
async function runOnFullDisk(size: string, filled = false): Promise<DiskFullRun> {
  const { dir, generate } = await prepare();
  // Exit 99 when the file system cannot be mounted: the test fails loudly rather than skip.
  const script = `TMPFS=1; mkdir -p full && mount -t tmpfs -o size=${size} tmpfs full || exit 99
${filled ? 'head -c 64m /dev/zero > full/pad 2>/dev/null' : ''}
"$@" > full.out 2> full.err
echo $? > full.code
${RESUME}`;
  return runScript(dir, generate, script, ['unshare', '-rm']);
}

/**
 * The same under a limit of file size (`ulimit -f`, in 512-byte blocks: a write past it fails with
 * EFBIG, node ignoring SIGXFSZ); stdout goes through a pipe, so only the run's own files meet it.
 * The resume runs without the limit.
 */
async function runUnderFileSizeLimit(blocks: number): Promise<DiskFullRun> {
  const { dir, generate } = await prepare();
  const script = `mkdir -p full
( trap '' XFSZ; ulimit -f ${blocks} || exit 99; "$@"; echo $? > full.code ) 2> full.err | cat > full.out
[ -s full.code ] || exit 99
${RESUME}`;
  return runScript(dir, generate, script, ['env']);
}

/** What every disk-full stop must leave: nothing half-done, and a resume that makes the run whole. */
function expectResumedWhole(run: DiskFullRun, invocations = 2): RunContents {
  expect(run.full.stderr).not.toMatch(/internal error|a bug/);
  expect(run.left.filter((name) => name.includes('.tmp-'))).toEqual([]);
  expect(run.left).not.toContain('run.lock');
  expect(run.resumed.code, run.resumed.stderr).toBe(0);
  const after = expectRunInvariants(run.runDir);
  const ids = after.records.map((record) => record['id']);
  expect([...ids].sort()).toEqual(prompts.map((p) => p.id).sort());
  // Downstream sees every record once: what the full disk streamed was committed, and the resume streams the rest.
  const streamed = [...parseJsonl(run.full.stdout), ...parseJsonl(run.resumed.stdout)].map((record) => (record as { id: string }).id);
  expect([...streamed].sort()).toEqual([...ids].sort());
  expect(after.manifest.invocations).toHaveLength(invocations);
  return after;
}

describe('hermes-generate --run-name on a full disk: an output failure (exit 74), resumable', () => {
  it('the disk fills while batch files are written: exit 74 naming the batch file; what was streamed is kept; --resume finishes', async () => {
    const run = await runOnFullDisk('300k');
    expect(run.full.code, run.full.stderr).toBe(74);
    expect(run.full.stderr).toMatch(
      /hermes-generate: error: cannot write \S*\/full\/r\/batch_\d+\.jsonl: no space left on the device \(ENOSPC\); every record written before it is kept in \S*\/full\/r: make room, then --resume finishes the run/,
    );
    // Some records made it before the disk was full; no batch file was left empty or torn.
    expect(parseJsonl(run.full.stdout).length).toBeGreaterThan(0);
    expect(run.left.filter((name) => name.startsWith('batch_')).length).toBeGreaterThan(0);
    const after = expectResumedWhole(run);
    // The stopped invocation could not record its end (run.json is on the full disk too): it reads as one that was killed.
    expect(after.manifest.invocations[0]).not.toHaveProperty('exit_code');
    expect(after.manifest.invocations[1]).toMatchObject({ exit_code: 0, resumed: true });
  });

  it('the disk fills at the merge after every record is written: exit 74 naming trajectories.jsonl; --resume merges', async () => {
    const run = await runOnFullDisk('2500k');
    expect(run.full.code, run.full.stderr).toBe(74);
    expect(run.full.stderr).toMatch(/cannot write \S*\/full\/r\/trajectories\.jsonl: no space left on the device \(ENOSPC\); every record written before it/);
    expect(parseJsonl(run.full.stdout)).toHaveLength(prompts.length);
    expectResumedWhole(run);
    expect(parseJsonl(run.resumed.stdout)).toHaveLength(0);
  });

  it('a disk that is full before the run starts: exit 74 naming the run lock, nothing left behind; --resume runs it all', async () => {
    const run = await runOnFullDisk('64k', true);
    expect(run.full.code, run.full.stderr).toBe(74);
    expect(run.full.stderr).toMatch(/hermes-generate: error: cannot write \S*\/full\/r\/run\.lock: no space left on the device \(ENOSPC\)/);
    expect(run.full.stdout).toBe('');
    expect(run.left).toEqual([]);
    // The first invocation could not record itself: the resume is the run's first.
    expectResumedWhole(run, 1);
  });

  it('a file larger than the file system takes (ulimit -f: EFBIG) at the merge: exit 74 naming trajectories.jsonl; --resume merges', async () => {
    const run = await runUnderFileSizeLimit(1000);
    expect(run.full.code, run.full.stderr).toBe(74);
    expect(run.full.stderr).toMatch(
      /cannot write \S*\/full\/r\/trajectories\.jsonl: file too large for the file system \(EFBIG\); every record written before it/,
    );
    expect(run.full.stderr).not.toMatch(/internal error|a bug/);
    expect(parseJsonl(run.full.stdout)).toHaveLength(prompts.length);
    expectResumedWhole(run);
  });
});
