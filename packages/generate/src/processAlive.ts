// Whether a process of this machine still runs: what decides that a leftover of a killed invocation
// (a temp file, a workspace, a sandbox directory or prompt cgroup named by its pid, a run lock) may be removed.

/** True for this process, and for one that exists though it is another user's (EPERM). */
export function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
