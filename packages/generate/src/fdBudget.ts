// File descriptors are a budget like any other: each prompt in flight holds a connection to the
// endpoint and, while a tool works, a file or a directory of its workspace; the process also holds
// its own (stdio, the run directory's batch files, the tool helper's channel). A machine whose
// `ulimit -n` is below what the asked concurrency needs would hand out EMFILE at random places, so
// the concurrency is lowered to what fits, once, with a warning, instead: exhaustion becomes a slower
// run, never failed tool calls in finished trajectories. (Tool processes' pipes are the helper's:
// processHelper.ts has a descriptor table of its own; spawn and open retry on EMFILE besides,
// tools/exhaustion.ts.)
import { readFileSync } from 'node:fs';

/** Descriptors the process holds whatever the concurrency: stdio, inputs, outputs, batch files, the helper. */
export const RESERVED_FDS = 64;
/** Descriptors one prompt in flight may hold at once: its connection, a file and a directory of its workspace, a spare. */
export const FDS_PER_PROMPT = 4;

/** The soft limit on open files of this process (`ulimit -n`), where the system says (Linux: /proc/self/limits). */
export function openFileLimit(limits = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limits, 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** The most prompts that fit in `limit` descriptors (at least 1). */
export function promptsWithinFds(limit: number): number {
  return Math.max(1, Math.floor((limit - RESERVED_FDS) / FDS_PER_PROMPT));
}

/** `asked`, or less with the reason when the descriptors would not suffice. */
export function fitConcurrency(asked: number, limit: number | undefined): { concurrency: number; warning?: string } {
  if (limit === undefined) return { concurrency: asked };
  const most = promptsWithinFds(limit);
  if (asked <= most) return { concurrency: asked };
  return {
    concurrency: most,
    warning: `${asked} prompts at once need about ${RESERVED_FDS + asked * FDS_PER_PROMPT} open files and this process may open ${limit} (ulimit -n): at most ${most} run at once; raise ulimit -n to run more`,
  };
}
