// The contract between hermes-generate's agent loop and the tools it offers the model.
import type { ToolArgs } from './args.js';
import type { PromptCgroup } from './promptCgroups.js';
import type { ToolProcesses } from './toolProcesses.js';

// delegate_task (run/delegation.ts): what a sub-agent is handed and what comes back to the delegating agent.
export interface DelegatedTask {
  readonly prompt: string;
  /** The sub-agent's toolsets; the delegating agent's when absent. */
  readonly toolsets?: readonly string[] | undefined;
}

export interface DelegatedResult {
  readonly task: number;
  readonly id: string;
  readonly status: 'completed' | 'incomplete' | 'failed';
  /** The sub-agent's final answer (its last reply's text, without reasoning), or why it failed. */
  readonly summary: string;
}

/** Runs the tasks as sub-agents of the calling agent, whose toolsets are `toolsets`. */
export type Delegate = (tasks: readonly DelegatedTask[], toolsets: readonly string[], signal: AbortSignal) => Promise<DelegatedResult[]>;

/** A Delegate bound to the calling agent's toolsets: what the tool context holds. */
export type BoundDelegate = (tasks: readonly DelegatedTask[], signal: AbortSignal) => Promise<DelegatedResult[]>;

/** A JSON Schema object as offered to the model in the tool definition. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export type TodoStatus = 'pending' | 'in_progress' | 'completed' | 'cancelled';

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

/** The todo list of one prompt; it lives as long as the prompt's agent loop. */
export interface TodoState {
  items: TodoItem[];
}

/** Terminal commands and code run inside this image instead of on the host. */
export interface DockerSandbox {
  kind: 'docker';
  image: string;
}

export interface ToolContext {
  /** Absolute path of the prompt's own workspace; file tools never reach outside it. */
  workspace: string;
  /** Environment of every process a tool starts: an allow-list, no secret in it (see toolEnv.ts). */
  env: Readonly<Record<string, string>>;
  /** The run's one way to start tool processes: bounded in number, in the run's sandbox. */
  processes: ToolProcesses;
  /** The prompt's own cgroup, which all its tool processes join, where the run has cgroups (promptCgroups.ts). */
  cgroup?: PromptCgroup;
  /** Upper bound on one command or code run; the model may ask for less, never for more. */
  timeoutMs: number;
  /** Upper bound on the command output (and on read_file content) kept in one result. */
  maxOutputBytes: number;
  /** Aborting it stops a running command and its whole process group. */
  signal?: AbortSignal;
  todo: TodoState;
  sandbox?: DockerSandbox;
  /** delegate_task's sub-agents (run/delegation.ts); only where delegation is offered. */
  delegate?: BoundDelegate;
}

export interface AgentTool {
  readonly name: string;
  /** The toolset this tool belongs to in core's registry (terminal, file, todo, code_execution). */
  readonly toolset: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  /**
   * True for a tool that never touches the filesystem (todo): a prompt offered only such tools
   * gets no workspace directory, which saves a directory made and removed per prompt.
   */
  readonly workspaceFree?: boolean;
  /**
   * True for a tool whose call is bounded by its own limits rather than --tool-timeout
   * (delegate_task: whole sub-agents, each with its own turns and tool timeouts).
   */
  readonly boundsItsOwnTime?: boolean;
  /**
   * Returns a JSON-serialisable result; throws ToolError for expected failures, which executeTool
   * turns into `{"error": ...}`.
   */
  run(args: ToolArgs, ctx: ToolContext): Promise<unknown>;
}

/** The result of terminal and execute_code; `error` is null unless the command could not run or was stopped. */
export interface CommandResult {
  output: string;
  exit_code: number | null;
  error: string | null;
}
