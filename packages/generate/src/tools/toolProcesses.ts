// Every process a tool starts goes through one ToolProcesses per run. It bounds how many run at
// once (--tool-concurrency), separately from how many prompts run at once: each spawn() blocks the
// event loop while the process is forked, and hundreds in a row stall it for seconds, which starves
// the model calls and every pipe being read. It also keeps file descriptor use (three pipes a
// process) within the limit when prompts run by the hundred. And it knows which process groups are
// alive, so a forced exit can kill them before it removes their workspaces. With a helper script, the
// processes are started by that small helper process (processHelper.ts), so hermes-generate's own
// thread never pays for a fork of its large memory.
import { availableParallelism } from 'node:os';
import { EXHAUSTION_CODES, retryExhausted } from './exhaustion.js';
import { ProcessHelperClient } from './processHelperClient.js';
import { killAllGroups } from './processHelperProtocol.js';
import { joinCommand, type CgroupEvents, type PromptCgroup, type PromptCgroups } from './promptCgroups.js';
import { runProcess, type ProcessOutcome, type ProcessSpec } from './runProcess.js';
import { hostProgramsEnv, hostSandbox, type HostIsolation, type HostSandbox } from './sandbox.js';
import type { ToolLimits } from './toolLimits.js';

/** A spawn that failed for want of file descriptors or processes: tried again later (exhaustion.ts). */
export const TRANSIENT_SPAWN_ERRORS: ReadonlySet<string> = EXHAUSTION_CODES;

/** Two processes a core: one can run while the other is being forked or read. */
export function defaultToolConcurrency(): number {
  return Math.max(2, 2 * availableParallelism());
}

export interface ToolProcessesOptions {
  /** Most tool processes running at once. */
  readonly limit: number;
  /** The namespace sandbox host commands run in (by name: over what sandboxFilesystem shows by default). */
  readonly isolation: HostIsolation | HostSandbox;
  /** The built processHelper.js (PROCESS_HELPER_SCRIPT) to start processes from; without it, this process starts them. */
  readonly helperScript?: string;
  /** The run's per-prompt cgroups (promptCgroups.ts), where this machine has them. */
  readonly cgroups?: PromptCgroups | undefined;
}

/** A process's outcome, and the limit hits its prompt's cgroup counted while it ran. */
export interface ToolOutcome extends ProcessOutcome {
  readonly cgroupEvents?: CgroupEvents;
}

export class ToolProcesses {
  private running = 0;
  /** options.limit, lowered when the machine could not start that many (see run). */
  private limit: number;
  private readonly waiting: (() => void)[] = [];
  private readonly groups = new Set<number>();

  private readonly helper: ProcessHelperClient | undefined;
  private readonly sandbox: HostSandbox;
  private readonly cgroups: PromptCgroups | undefined;

  public constructor(options: ToolProcessesOptions) {
    this.limit = options.limit;
    this.sandbox = typeof options.isolation === 'string' ? hostSandbox(options.isolation, undefined, hostProgramsEnv(process.env)) : options.isolation;
    this.cgroups = options.cgroups;
    this.helper = options.helperScript === undefined ? undefined : new ProcessHelperClient(options.helperScript);
  }

  /** The uid and gid the sandbox runs tools as, when not this process's: owner of what the file tools write. */
  public get owner(): { readonly uid: number; readonly gid: number } | undefined {
    return this.sandbox.owner;
  }

  /** The bounds the sandbox sets on every tool process, if any. */
  public get limits(): ToolLimits | undefined {
    return this.sandbox.limits;
  }

  /** A cgroup for one prompt's tool processes, to pass to run and close at its end; none without cgroups. */
  public promptCgroup(): PromptCgroup | undefined {
    return this.cgroups?.prompt();
  }

  /**
   * Runs the process when a slot is free, inside the sandbox unless `isolate` is false (the docker
   * CLI), and inside its prompt's cgroup when given one. The timeout starts when the process does. Aborted while waiting, it never starts. A spawn
   * that failed for want of file descriptors or processes (EMFILE, ENFILE, EAGAIN) lowers the limit to what runs now (the machine's limits are below ours)
   * and waits and tries again (exhaustion.ts) until it starts or its call is aborted: back-pressure,
   * never a failed tool call for it.
   */
  public async run(spec: ProcessSpec, isolate = true, cgroup?: PromptCgroup): Promise<ToolOutcome> {
    const sandboxed = isolate
      ? { ...this.sandbox.command(spec.file, spec.args, spec.cwd), env: this.sandbox.env(spec.env) }
      : { file: spec.file, args: [...spec.args] };
    if (cgroup === undefined) return this.runRetried(spec, sandboxed);
    const command = { ...sandboxed, ...joinCommand(cgroup.dirs(), sandboxed.file, sandboxed.args) };
    const before = cgroup.events();
    const outcome = await this.runRetried(spec, command);
    const after = cgroup.events();
    return { ...outcome, cgroupEvents: { forkFailures: after.forkFailures - before.forkFailures, oomKills: after.oomKills - before.oomKills } };
  }

  private runRetried(spec: ProcessSpec, command: Pick<ProcessSpec, 'file' | 'args'> & Partial<Pick<ProcessSpec, 'env'>>): Promise<ProcessOutcome> {
    return retryExhausted(
      () => this.runInSlot({ ...spec, ...command }),
      spec.signal,
      (outcome) => TRANSIENT_SPAWN_ERRORS.has(outcome.spawnError?.code ?? ''),
      // As many as are alive now (holding their descriptors) is what this machine allows.
      () => (this.limit = Math.max(1, Math.min(this.limit, this.groups.size))),
    );
  }

  /** Synchronously SIGKILLs every tool process group still running: the last thing before a forced exit. */
  public killAll(): void {
    killAllGroups(this.groups);
    this.cgroups?.killAll();
  }

  private async runInSlot(spec: ProcessSpec): Promise<ProcessOutcome> {
    if (!(await this.slot(spec.signal))) return { output: '', exitCode: null, timedOut: false, aborted: true };
    let group: number | undefined;
    const tracked: ProcessSpec = {
      ...spec,
      onGroup: (pid) => {
        if (group !== undefined) this.groups.delete(group);
        group = pid;
        if (pid !== undefined) this.groups.add(pid);
      },
    };
    try {
      // docker's onStop is a callback, which cannot cross to the helper: that run stays here.
      return await (this.helper === undefined || spec.onStop !== undefined ? runProcess(tracked) : this.helper.run(tracked));
    } finally {
      this.release();
    }
  }

  private slot(signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.running < this.limit && this.waiting.length === 0) {
      this.running += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(false);
      };
      // release() counts the slot as taken before it calls this.
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    this.running -= 1;
    while (this.running < this.limit) {
      const next = this.waiting.shift();
      if (next === undefined) return;
      this.running += 1;
      next();
    }
  }
}
