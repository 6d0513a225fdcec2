// Bounds on a prompt's tool processes: how many processes, how much memory and how much CPU time.
// Where this machine lets hermes-generate make cgroups, processes and memory are bounded per prompt,
// all its tool processes together (promptCgroups.ts), and only CPU time is an rlimit. Elsewhere all
// three are rlimits inside the namespace sandboxes (sandbox.ts), set by prlimit (util-linux) as the
// last step before the command runs: they work for any user. The process count is then per tool
// command: the sandbox runs in a user namespace of its own, and Linux counts RLIMIT_NPROC per user
// namespace (and never for root, hence the sandbox's unprivileged uid under root). Memory and CPU
// time are per process. Memory is RLIMIT_DATA, the process's private writable memory (heap,
// anonymous mappings), not RLIMIT_AS: address space that is only reserved (V8 reserves gigabytes for
// WebAssembly, which node's fetch uses) costs nothing.
//
// Exceeding one is a failed tool call with a clear message, and the run goes on. A cgroup counts its
// refused forks (pids.events) and OOM kills; an rlimit leaves only what the programs say: a fork that
// fails shows as the shell's "Resource temporarily unavailable", an allocation as the program's own
// out-of-memory error. CPU time shows as death by SIGXCPU.
import { constants } from 'node:os';
import type { CgroupEvents } from './promptCgroups.js';
import type { ProcessOutcome } from './runProcess.js';

export interface ToolLimits {
  /** Processes (and threads) alive at once in one tool command's sandbox. */
  readonly maxProcs: number;
  /** Private writable memory of each process (RLIMIT_DATA), in bytes. */
  readonly memoryBytes: number;
  /** CPU seconds of each process. */
  readonly cpuSeconds: number;
}

/** Docker sets none by default; these leave a build or a test suite room and stop a fork bomb or a runaway allocation. */
export const DEFAULT_TOOL_LIMITS: ToolLimits = { maxProcs: 256, memoryBytes: 2 * 1024 ** 3, cpuSeconds: 60 };

/** After SIGXCPU at the limit, a process that ignores it is killed this many seconds later. */
const CPU_GRACE_S = 5;

/**
 * The prlimit command line that runs a command under the limits; none without prlimit (an absolute
 * path). Only CPU time where a cgroup per prompt bounds processes and memory.
 */
export function rlimitArgs(limits: ToolLimits, prlimit: string, cpuOnly = false): string[] {
  if (!prlimit.startsWith('/')) return [];
  const cpu = `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + CPU_GRACE_S}`;
  return [prlimit, ...(cpuOnly ? [] : [`--nproc=${limits.maxProcs}`, `--data=${limits.memoryBytes}`]), cpu, '--'];
}

/** A size such as 2g, 512m, 1.5G or a number of bytes; undefined when it is none. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  if (match === null) return undefined;
  const power = ' kmgt'.indexOf((match[2] ?? '').toLowerCase() || ' ');
  const bytes = Math.floor(Number(match[1]) * 1024 ** power);
  return bytes > 0 ? bytes : undefined;
}

const FORK_FAILED = /fork: (?:retry: )?(?:Resource temporarily unavailable|Interrupted system call)|Cannot fork|BlockingIOError: \[Errno 11\]|spawn EAGAIN/;
const ALLOCATION_FAILED = /MemoryError|Cannot allocate memory|out of memory|allocation failed|std::bad_alloc|memory exhausted/i;

/**
 * Which limit a finished command ran into, as the message of its failed call; undefined when none
 * shows. `rlimits` are the sandbox's (undefined: none), `perPrompt` the prompt cgroup's limits when
 * the command ran in one, with the hits it counted meanwhile in the outcome.
 */
export function limitExceeded(
  outcome: ProcessOutcome & { readonly cgroupEvents?: CgroupEvents },
  rlimits: ToolLimits | undefined,
  perPrompt?: Pick<ToolLimits, 'maxProcs' | 'memoryBytes'>,
): string | undefined {
  const stopped = 'the command went on as far as it could; the run goes on';
  if (rlimits !== undefined && outcome.exitCode === 128 + constants.signals.SIGXCPU) {
    return `a process used up its CPU time limit of ${rlimits.cpuSeconds} s (--tool-cpu-seconds) and was stopped; ${stopped}`;
  }
  if (perPrompt !== undefined) {
    const events = outcome.cgroupEvents ?? { forkFailures: 0, oomKills: 0 };
    if (events.oomKills > 0) {
      return (
        `a process was killed by the out-of-memory killer: this prompt's tool processes together reached their memory limit of ` +
        `${formatSize(perPrompt.memoryBytes)} (--tool-memory, a cgroup per prompt); ${stopped}`
      );
    }
    // The shell's words as well: a kernel without pids.events counts no refused fork.
    if (events.forkFailures > 0 || FORK_FAILED.test(outcome.output)) {
      return (
        `this prompt's tool processes together reached their limit of ${perPrompt.maxProcs} processes (--tool-max-procs, a cgroup per prompt, ` +
        `counting those earlier calls left running): further processes could not start; ${stopped}`
      );
    }
    return undefined;
  }
  if (rlimits === undefined) return undefined;
  if (FORK_FAILED.test(outcome.output)) {
    // A fork bomb's shell may carry on and exit 0: the failed forks are the sign.
    return `the command reached the sandbox's limit of ${rlimits.maxProcs} processes (--tool-max-procs): further processes could not start; ${stopped}`;
  }
  // A command that printed such words and succeeded (a grep through logs) hit nothing.
  if (outcome.exitCode !== 0 && ALLOCATION_FAILED.test(outcome.output)) {
    return `a process could not allocate memory beyond the sandbox's limit of ${formatSize(rlimits.memoryBytes)} per process (--tool-memory); ${stopped}`;
  }
  return undefined;
}

export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
