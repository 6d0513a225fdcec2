// Runs one process for a tool and guarantees it leaves nothing behind. The process starts in its
// own process group (detached: setsid), so a timeout or an abort can signal the whole group:
// SIGTERM first, SIGKILL after a grace period. When the process exits by itself, what is left of
// its group (`server &` started by the command) is killed as well: a tool call's processes never
// outlive the call, and background children holding the output pipes cannot stall the result.
// A process that leaves the group on its own (setsid, a daemon) escapes this; the docker sandbox
// contains those.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { CappedOutput } from './cappedOutput.js';

/** How long a process group gets to exit after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 1000;

/** How long to wait for the output pipes to close once the group has been killed. */
const PIPE_DRAIN_MS = 500;

export interface ProcessSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Written to the process's stdin, which is then closed; without it stdin is empty. */
  stdin?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Also run when the process is stopped early: the docker sandbox kills its container here. */
  onStop?: () => Promise<void>;
}

export interface ProcessOutcome {
  /** stdout and stderr interleaved as they arrived, capped (cappedOutput.ts). */
  output: string;
  /** The exit status, 128 + signal number for a signal death (as shells report it), null if it never ran. */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the program could not be started (ENOENT: not on PATH). */
  spawnError?: NodeJS.ErrnoException;
}

export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  const output = new CappedOutput(spec.maxOutputBytes);
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let stopping = false;
    let exitCode: number | null = null;
    let spawnError: NodeJS.ErrnoException | undefined;
    const timers: NodeJS.Timeout[] = [];
    let settled = false;

    const child = spawn(spec.file, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    // A command that exits without reading its stdin closes the pipe under us: not a failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(spec.stdin ?? '');

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const finish = (): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      resolve({ output: output.text(), exitCode, timedOut, aborted, ...(spawnError ? { spawnError } : {}) });
    };
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      killGroup('SIGTERM');
      void spec.onStop?.().catch(() => undefined);
      timers.push(setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS));
    };
    const onAbort = (): void => {
      aborted = true;
      stop();
    };

    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, spec.timeoutMs),
    );
    if (spec.signal?.aborted) onAbort();
    else spec.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return;
      spawnError = error;
      finish();
    });
    child.on('exit', (code, signal) => {
      exitCode = code ?? (signal ? 128 + constants.signals[signal] : null);
      killGroup('SIGKILL');
      // A process that left the group may still hold the pipes; stop waiting for them.
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, PIPE_DRAIN_MS),
      );
    });
    child.on('close', finish);
  });
}
