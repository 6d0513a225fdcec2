// A second Ctrl-C (or SIGTERM) exits at once: the run's own cleanup waits on work that may be stuck
// (a tool process that ignores SIGTERM, a hung request), and the user asked twice. What the run made
// that must not outlive it (temp workspaces, tool processes) and what it must leave even so
// (--stats-out) is registered here as a synchronous hook; main() runs the hooks, newest first, just
// before process.exit. A hook that fails does not stop the others or the exit.
type ForcedExitHook = (exitCode: number) => void;

const hooks: ForcedExitHook[] = [];

/** Registers a hook for a forced exit; the returned function unregisters it (the run ended normally). */
export function onForcedExit(hook: ForcedExitHook): () => void {
  hooks.push(hook);
  return () => {
    const index = hooks.indexOf(hook);
    if (index >= 0) hooks.splice(index, 1);
  };
}

/** Runs every registered hook once, newest first, with the exit code the process is about to exit with. */
export function runForcedExitHooks(exitCode: number): void {
  for (const hook of hooks.splice(0).reverse()) {
    try {
      hook(exitCode);
    } catch {
      // The exit goes on: the user asked for it twice.
    }
  }
}
