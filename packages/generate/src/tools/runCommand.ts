// What terminal and execute_code share: run a program on the host (in the run's namespace sandbox) or
// in the docker sandbox, within the context's limits and the run's bound on tool processes, and
// report it in upstream's terminal shape `{output, exit_code, error}`.
// Upstream's success rule (docs/rules.md#tool-success) counts a non-null `error` as a failed call and
// a non-zero exit code as a successful one, so `error` is set only when the command could not run
// or was stopped, never for a command that ran and failed.
import { dockerFailedMessage, dockerInvocation, dockerMissingMessage, DOCKER_RUN_FAILED, killContainer } from './docker.js';
import type { ProcessOutcome } from './runProcess.js';
import { limitExceeded } from './toolLimits.js';
import { TRANSIENT_SPAWN_ERRORS } from './toolProcesses.js';
import type { CommandResult, ToolContext } from './types.js';

export interface CommandPlan {
  /** Program and arguments on the host. */
  host: { file: string; args: readonly string[] };
  /** The same as argv inside the sandbox container, where host paths mean nothing. */
  container: readonly string[];
  stdin?: string;
  timeoutMs: number;
}

export async function runCommand(plan: CommandPlan, ctx: ToolContext): Promise<CommandResult> {
  const limits = {
    cwd: ctx.workspace,
    env: ctx.env,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: ctx.maxOutputBytes,
    ...(plan.stdin === undefined ? {} : { stdin: plan.stdin }),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  if (ctx.sandbox) {
    const docker = dockerInvocation(ctx.sandbox, ctx.workspace, plan.container);
    const outcome = await ctx.processes.run(
      { ...limits, file: docker.file, args: docker.args, onStop: () => killContainer(docker.containerName, ctx.env) },
      false,
    );
    if (outcome.spawnError?.code === 'ENOENT') return { output: '', exit_code: null, error: dockerMissingMessage() };
    if (outcome.exitCode === DOCKER_RUN_FAILED && !outcome.timedOut && !outcome.aborted) {
      return { output: outcome.output.trimEnd(), exit_code: outcome.exitCode, error: dockerFailedMessage(ctx.sandbox, outcome.output) };
    }
    return commandResult(outcome, docker.file, plan.timeoutMs, ctx.timeoutMs);
  }
  const outcome = await ctx.processes.run({ ...limits, ...plan.host }, true, ctx.cgroup);
  const result = commandResult(outcome, plan.host.file, plan.timeoutMs, ctx.timeoutMs);
  const exceeded = result.error === null ? limitExceeded(outcome, ctx.processes.limits, ctx.cgroup?.limits) : undefined;
  return exceeded === undefined ? result : { ...result, error: exceeded };
}

function commandResult(outcome: ProcessOutcome, file: string, timeoutMs: number, maxTimeoutMs: number): CommandResult {
  const output = outcome.output.trimEnd();
  if (outcome.spawnError) {
    const code = outcome.spawnError.code ?? '';
    const reason =
      code === 'ENOENT'
        ? 'it was not found on PATH'
        : TRANSIENT_SPAWN_ERRORS.has(code)
          ? `the machine had no file descriptors or processes left (${code}), even after waiting for others to end; try again`
          : outcome.spawnError.message;
    // The program that failed: the sandbox's (bwrap) when it is the one missing.
    return { output, exit_code: null, error: `could not start ${outcome.spawnError.path ?? file}: ${reason}` };
  }
  if (outcome.aborted) {
    return { output, exit_code: outcome.exitCode, error: 'stopped: the run is shutting down; the command and its processes were killed' };
  }
  if (outcome.timedOut) {
    return {
      output,
      exit_code: outcome.exitCode,
      error:
        `timed out after ${seconds(timeoutMs)} s; the command and every process it started were killed. ` +
        `Make it faster or split it up; the timeout argument can raise the limit up to ${seconds(maxTimeoutMs)} s.`,
    };
  }
  return { output, exit_code: outcome.exitCode, error: null };
}

function seconds(ms: number): string {
  return Number.isInteger(ms / 1000) ? String(ms / 1000) : (ms / 1000).toFixed(1);
}
