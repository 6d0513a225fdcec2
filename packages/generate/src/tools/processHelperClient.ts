// hermes-generate's side of the process helper (processHelper.ts): started on first use, one request
// a tool process, answered with the same outcome runProcess gives. While requests are pending the
// channel keeps hermes-generate alive; otherwise neither the helper nor its channel does. If the
// helper ends, the pending requests get a spawn error (a tool error result) and the next request
// starts a new one.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HelperReply, HelperRequest } from './processHelperProtocol.js';
import type { ProcessOutcome, ProcessSpec } from './runProcess.js';

/** The built helper script beside this module. */
export const PROCESS_HELPER_SCRIPT = fileURLToPath(new URL('./processHelper.js', import.meta.url));

interface Pending {
  resolve(outcome: ProcessOutcome): void;
  onGroup?: ((pid: number | undefined) => void) | undefined;
}

export class ProcessHelperClient {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  public constructor(private readonly script: string) {}

  /** runProcess in the helper. A spec with onStop (docker's) cannot be sent: run that one in-process. */
  public run(spec: ProcessSpec): Promise<ProcessOutcome> {
    const { signal, onGroup, onStop: _onStop, ...wire } = spec;
    const child = this.started();
    const id = this.nextId++;
    return new Promise((resolve) => {
      const onAbort = (): void => this.send(child, { type: 'abort', id });
      this.pending.set(id, {
        resolve: (outcome) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
        onGroup,
      });
      child.channel?.ref();
      this.send(child, { type: 'run', id, spec: wire });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private started(): ChildProcess {
    if (this.child) return this.child;
    // No flags of this process (a --cpu-prof, a preload) and no variable but PATH: it only starts processes.
    const child = fork(this.script, [], {
      execArgv: [],
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    child.on('message', (reply: HelperReply) => this.receive(reply));
    child.on('error', () => this.gone(child));
    child.on('exit', () => this.gone(child));
    child.unref();
    child.channel?.unref();
    this.child = child;
    return child;
  }

  private receive(reply: HelperReply): void {
    const pending = this.pending.get(reply.id);
    if (pending === undefined) return;
    if (reply.type === 'group') {
      pending.onGroup?.(reply.pid ?? undefined);
      return;
    }
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.child?.channel?.unref();
    const { spawnError, ...outcome } = reply.outcome;
    pending.resolve({
      ...outcome,
      ...(spawnError ? { spawnError: Object.assign(new Error(spawnError.message), { code: spawnError.code, path: spawnError.path }) } : {}),
    });
  }

  private send(child: ChildProcess, request: HelperRequest): void {
    // A helper that is gone answers every pending request through gone().
    if (child.connected) child.send(request);
  }

  private gone(child: ChildProcess): void {
    if (this.child !== child) return;
    this.child = undefined;
    const error = Object.assign(new Error('the process that starts tool processes ended unexpectedly; the next command starts a new one'), { code: 'EHELPER' });
    for (const pending of this.pending.values()) {
      pending.onGroup?.(undefined);
      pending.resolve({ output: '', exitCode: null, timedOut: false, aborted: false, spawnError: error });
    }
    this.pending.clear();
  }
}
