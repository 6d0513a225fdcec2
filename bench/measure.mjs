// Runs one command with a file on stdin and measures its wall time and peak resident memory.
//
// Peak RSS comes from GNU time (`/usr/bin/time -f %M`: the kernel's ru_maxrss from wait4, exact) when
// it is installed and works; a fresh Debian has no `time` package, so otherwise it comes from polling
// VmHWM in /proc/<pid>/status every 5 ms (Linux). VmHWM is the kernel's own high-water mark, so the
// poll only misses growth in the last few ms before exit. GNU time forks the subject itself, so the
// harness's memory never leaks into the figure (ru_maxrss is inherited across fork + exec).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

// BENCH_GNU_TIME='' forces the /proc fallback (to check it, or where `time` is not GNU time).
const GNU_TIME = process.env.BENCH_GNU_TIME ?? '/usr/bin/time';
const POLL_MS = 5;
const STDERR_TAIL = 4000;

/** 'gnu-time', 'proc-vmhwm-poll' or 'none' (peak RSS not measured). */
export const rssMethod = detectRssMethod();

function detectRssMethod() {
  const probe = `${tmpdir()}/bench-rss-probe-${process.pid}`;
  try {
    if (!GNU_TIME) throw new Error('GNU time not wanted');
    const run = spawnSync(GNU_TIME, ['-f', '%M', '-o', probe, 'true']);
    if (run.status === 0 && /^\d+\s*$/.test(readFileSync(probe, 'utf8'))) return 'gnu-time';
  } catch {
    // No GNU time: try /proc below.
  } finally {
    rmSync(probe, { force: true });
  }
  try {
    readFileSync('/proc/self/status');
    return 'proc-vmhwm-poll';
  } catch {
    return 'none';
  }
}

export function describeRssMethod() {
  return {
    'gnu-time': 'peak RSS by GNU time (/usr/bin/time -f %M)',
    'proc-vmhwm-poll': `peak RSS by polling VmHWM in /proc every ${POLL_MS} ms (install GNU time for exact figures: apt-get install -y time)`,
    none: 'peak RSS not measured (no GNU time, no /proc)',
  }[rssMethod];
}

function readVmHwmKb(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // gone already
  }
}

/**
 * Runs `cmd args` in `cwd` with `stdinPath` on stdin. stdout goes to /dev/null, or, when `consumeStdout`
 * is given, through a pipe to it (its result is returned as `checked`).
 * @returns {Promise<{ wallS: number, rssMb: number | null, exitCode: number | null, signal: string | null, stderrTail: string, checked?: unknown }>}
 */
export async function runOnce({ cmd, args, cwd, stdinPath, consumeStdout }) {
  const stdin = openSync(stdinPath, 'r');
  const stdout = consumeStdout ? 'pipe' : openSync('/dev/null', 'w');
  const rssFile = `${tmpdir()}/bench-rss-${process.pid}-${Date.now()}`;
  const [file, argv] = rssMethod === 'gnu-time' ? [GNU_TIME, ['-f', '%M', '-o', rssFile, cmd, ...args]] : [cmd, args];
  const started = process.hrtime.bigint();
  const child = spawn(file, argv, { cwd, stdio: [stdin, stdout, 'pipe'] });
  closeSync(stdin);
  if (typeof stdout === 'number') closeSync(stdout);

  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL);
  });
  let peakKb = 0;
  const poll =
    rssMethod === 'proc-vmhwm-poll'
      ? setInterval(() => {
          peakKb = Math.max(peakKb, readVmHwmKb(child.pid));
        }, POLL_MS)
      : undefined;
  const checked = consumeStdout ? consumeStdout(child.stdout) : undefined;

  const { exitCode, signal, wallS } = await new Promise((resolve) => {
    const wallS = () => Number(process.hrtime.bigint() - started) / 1e9;
    // A command that cannot be started reports like one that failed, with the reason as its stderr.
    child.once('error', (err) => {
      stderrTail += `cannot run ${cmd}: ${err.message}`;
      resolve({ exitCode: null, signal: null, wallS: wallS() });
    });
    child.once('exit', (code, sig) => resolve({ exitCode: code, signal: sig, wallS: wallS() }));
  });
  clearInterval(poll);
  if (exitCode !== null || signal !== null) await new Promise((resolve) => (child.stderr.readableEnded ? resolve() : child.stderr.once('close', resolve)));

  let rssMb = null;
  if (rssMethod === 'gnu-time') {
    // GNU time may put "Command exited with non-zero status N" before the number.
    const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
    rmSync(rssFile, { force: true });
    const kb = Number(lines.at(-1));
    rssMb = Number.isFinite(kb) ? (kb * 1024) / 1e6 : null;
  } else if (rssMethod === 'proc-vmhwm-poll') {
    rssMb = (peakKb * 1024) / 1e6;
  }
  return { wallS, rssMb, exitCode, signal, stderrTail, ...(checked ? { checked: await checked } : {}) };
}
