// Runs one process for a tool and guarantees it leaves nothing behind. The process starts in its
// own process group (detached: setsid), so a timeout or an abort can signal the whole group:
// SIGTERM first, SIGKILL after a grace period. When the process exits by itself, what is left of
// its group (`server &` started by the command) is killed as well: a tool call's processes never
// outlive the call, and background children holding the output pipes cannot stall the result.
// A process that leaves the group on its own (setsid, a daemon) escapes this; the namespace
// sandboxes (sandbox.ts) and docker contain those.
//
// The result holds everything the process wrote: it is settled when both pipes have closed, never
// by a timer that races the reading (under load the event loop can be late by seconds, and a timer
// that gives up on the pipes then drops output that was written). The timeout bounds the process:
// when it fires, the group is killed, and only a pipe still held open after that (by a process that
// left the group) is cut.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { CappedOutput } from './cappedOutput.js';

/** How long a process group gets to exit after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 1000;

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
  /** Told the process group id once the process runs, and undefined once it is gone (fast exit kills them). */
  onGroup?: (pid: number | undefined) => void;
}

export interface ProcessOutcome {
  /** stdout and stderr interleaved as they arrived, capped (cappedOutput.ts). */
  output: string;
  /** The exit status, 128 + signal number for a signal death (as shells report it), null if it never ran. */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the program could not be started (ENOENT: not on PATH; EMFILE: no file descriptor left). */
  spawnError?: NodeJS.ErrnoException;
}

export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  const output = new CappedOutput(spec.maxOutputBytes);
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let stopping = false;
    let exited = false;
    let exitCode: number | null = null;
    const timers: NodeJS.Timeout[] = [];
    let settled = false;

    const finish = (spawnError?: NodeJS.ErrnoException): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      spec.onGroup?.(undefined);
      resolve({ output: output.text(), exitCode, timedOut, aborted, ...(spawnError ? { spawnError } : {}) });
    };
    const onAbort = (): void => {
      aborted = true;
      stop();
    };

    let child: ChildProcess;
    try {
      child = spawn(spec.file, [...spec.args], { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      finish(error as NodeJS.ErrnoException);
      return;
    }
    // First, before any stream is touched: a failed spawn (EMFILE, ENOENT) is reported as an
    // 'error' event, and may come with no stdio streams at all.
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) finish(error);
    });
    if (child.pid === undefined) return;
    spec.onGroup?.(child.pid);

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    function stop(): void {
      if (stopping) return;
      stopping = true;
      killGroup('SIGTERM');
      void spec.onStop?.().catch(() => undefined);
      timers.push(
        setTimeout(() => {
          killGroup('SIGKILL');
          // The group is dead; a pipe still open now is held by a process that left it.
          if (exited) cutPipes();
        }, KILL_GRACE_MS),
      );
    }
    const cutPipes = (): void => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish();
    };

    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    // A command that exits without reading its stdin closes the pipe under us: not a failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(spec.stdin ?? '');

    timers.push(
      setTimeout(() => {
        timedOut = true;
        if (exited) cutPipes();
        else stop();
      }, spec.timeoutMs),
    );
    if (spec.signal?.aborted) onAbort();
    else spec.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code ?? (signal ? 128 + constants.signals[signal] : null);
      // Background children left in the group would hold the pipes open: the call is over for them.
      killGroup('SIGKILL');
      if (stopping) timers.push(setTimeout(cutPipes, KILL_GRACE_MS));
    });
    // 'close' comes once the process has exited and both pipes have been read to their end.
    child.on('close', () => finish());
  });
}
