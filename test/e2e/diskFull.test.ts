// A full disk, for real: stdout on /dev/full, and -o / --rejects on a 64 KiB tmpfs mounted in a private
// mount namespace (unshare -rm: the mount exists only for the command, and goes with it). Each is an
// output failure (exit 74) with its own message naming the output, never exit 70 "a bug"; no temp file
// is left, and the summary never names a --rejects file that was not written.
import { describe, expect, it } from 'vitest';
import { binPath, jsonl, runCommand, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, trajectory } from '../util/trajectories.js';

const FILTER = binPath('filter', 'hermes-filter');
const STATS = binPath('stats', 'hermes-stats');

/** About 600 KB of valid trajectories: more than the 64 KiB file system holds. */
const records = jsonl(
  Array.from({ length: 1500 }, (_, i) =>
    trajectory({ prompt_index: i, conversations: [human(`Prompt ${i} ${'x'.repeat(300)}`), gpt({ think: 'Plan.', text: 'Done.' })] }),
  ),
);

/**
 * Runs hermes-filter (args after `--`) in dir, with dir/full a 64 KiB tmpfs; prints what is left in
 * dir/full afterwards (before the mount goes) on a last stdout line, `left: name name`.
 */
function filterOnFullDisk(dir: string, args: string[], bin: string = FILTER, filled = false) {
  // Filled: a file takes all the space first (its own write fails, as meant), so any write fails.
  const script = `mkdir -p full && mount -t tmpfs -o size=64k tmpfs full || exit 99
${filled ? 'head -c 100000 /dev/zero > full/pad 2>/dev/null' : ''}
"$0" "$@" > /dev/null
status=$?
echo "left:$(ls -A full | tr '\\n' ' ')"
exit $status`;
  return runCommand('unshare', ['-rm', '/bin/sh', '-c', script, process.execPath, bin, ...args], { cwd: dir });
}

describe('a full disk is an output failure (exit 74), never a bug', () => {
  it('stdout on /dev/full: exit 74, "cannot write stdout: no space left on the device"', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': records });
    const res = await runCommand('/bin/sh', ['-c', `"${process.execPath}" "${FILTER}" in.jsonl > /dev/full`], { cwd: dir });
    expect(res.code, res.stderr).toBe(74);
    expect(res.stderr).toContain('hermes-filter: error: cannot write stdout: no space left on the device (ENOSPC)');
    expect(res.stderr).not.toMatch(/internal error|a bug/);
  });

  it('-o on a full file system: exit 74 naming the file; no output file and no .tmp-* left', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': records });
    const res = await filterOnFullDisk(dir, ['in.jsonl', '-o', 'full/out.jsonl', '--stats-out', 'stats.json']);
    expect(res.code, res.stderr).toBe(74);
    expect(res.stderr).toContain('hermes-filter: error: cannot write full/out.jsonl: no space left on the device (ENOSPC)');
    expect(res.stderr).not.toMatch(/internal error|a bug/);
    expect(res.stdout.trim()).toBe('left:');
  });

  it('--rejects on a full file system: exit 74; the summary does not name the file as written; nothing left', async () => {
    const dir = tempDir();
    const bad = Array.from({ length: 100 }, (_, i) => `{"broken": ${i}, "pad": "${'y'.repeat(2000)}"`).join('\n');
    writeFiles(dir, { 'in.jsonl': `${records}${bad}\n` });
    const res = await filterOnFullDisk(dir, ['in.jsonl', '--on-error', 'skip', '--rejects', 'full/rejects.jsonl']);
    expect(res.code, res.stderr).toBe(74);
    expect(res.stderr).toContain('cannot write full/rejects.jsonl: no space left on the device (ENOSPC)');
    expect(res.stderr).not.toContain('written to full/rejects.jsonl');
    expect(res.stderr).toContain('(--rejects full/rejects.jsonl could not be written)');
    expect(res.stderr).not.toMatch(/internal error|a bug/);
    expect(res.stdout.trim()).toBe('left:');
  });

  it('a summary file (hermes-stats --summary) or --stats-out on a full disk: exit 74 naming the file, no temp file left', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'in.jsonl': records });
    const summary = await filterOnFullDisk(dir, ['--summary', 'full/summary.json', 'in.jsonl'], STATS, true);
    expect(summary.code, summary.stderr).toBe(74);
    expect(summary.stderr).toMatch(/hermes-stats: error: cannot write \S*\/full\/summary\.json: no space left on the device \(ENOSPC\)/);
    expect(summary.stderr).not.toMatch(/internal error|a bug/);
    expect(summary.stdout.trim()).toBe('left:pad');
    const statsOut = await filterOnFullDisk(dir, ['in.jsonl', '--stats-out', 'full/stats.json'], FILTER, true);
    expect(statsOut.code, statsOut.stderr).toBe(74);
    expect(statsOut.stderr).toMatch(/cannot write \S*\/full\/stats\.json: no space left on the device \(ENOSPC\)/);
    expect(statsOut.stdout.trim()).toBe('left:pad');
  });
});
