// Sub-agent delegation (toolset `delegation`, tool delegate_task), with spawn_parallel semantics: the
// model hands over a list of {prompt, toolsets?}; each task runs as a sub-agent through the same
// prompt runner (so the one resolved endpoint, the same --max-turns, the same tools and limiter),
// all at once, and each sub-agent's final answer comes back in the tool result. Every sub-agent's
// own trajectory is kept too, linked to its chain: metadata.parent_id (the record that delegated),
// metadata.trace_id (the root prompt's, shared by the whole chain) and metadata.depth (root 0).
// Offered only in run mode (the records need a run to go to), and only above the depth budget.
import { parseGptValue, type Trajectory } from '@hermes-datagen/core';
import type { PromptJob, PromptRunner } from '../generateStream.js';
import { optionalString } from '../tools/args.js';
import { IMPLEMENTED_TOOLS } from '../tools/toolRunner.js';
import { ToolError } from '../tools/toolError.js';
import type { AgentTool, Delegate, DelegatedResult, DelegatedTask } from '../tools/types.js';

export const DELEGATE_TASK = 'delegate_task';
/** Tasks one delegate_task call may hand over. */
export const MAX_TASKS = 8;

export const delegateTaskTool: AgentTool = {
  name: DELEGATE_TASK,
  toolset: 'delegation',
  workspaceFree: true,
  description:
    'Hand tasks to sub-agents that work in parallel, each on its own with the same tools (or the toolsets given), and get back ' +
    `each one's final answer. Give every task a complete, self-contained prompt; at most ${MAX_TASKS} tasks a call.`,
  parameters: {
    type: 'object',
    properties: {
      tasks: {
        type: 'array',
        items: {
          type: 'object',
          properties: { prompt: { type: 'string' }, toolsets: { type: 'array', items: { type: 'string' } } },
          required: ['prompt'],
        },
      },
    },
    required: ['tasks'],
  },
  async run(args, ctx) {
    if (ctx.delegate === undefined) throw new ToolError('delegate_task is not available at this depth');
    const tasks = args['tasks'];
    if (!Array.isArray(tasks) || tasks.length === 0) throw new ToolError('argument "tasks" must be a non-empty list of {prompt, toolsets?}');
    if (tasks.length > MAX_TASKS) throw new ToolError(`at most ${MAX_TASKS} tasks a call, got ${tasks.length}`);
    const parsed = tasks.map((task: unknown, i): DelegatedTask => {
      if (typeof task !== 'object' || task === null || Array.isArray(task)) throw new ToolError(`task ${i} must be an object {prompt, toolsets?}`);
      const fields = task as Record<string, unknown>;
      const prompt = optionalString(fields, 'prompt');
      if (prompt === undefined || prompt.trim() === '') throw new ToolError(`task ${i} needs a non-empty "prompt"`);
      const toolsets = fields['toolsets'];
      if (toolsets !== undefined && (!Array.isArray(toolsets) || !toolsets.every((name) => typeof name === 'string'))) {
        throw new ToolError(`task ${i}: "toolsets" must be a list of toolset names`);
      }
      return { prompt, toolsets: toolsets as string[] | undefined };
    });
    const results = await ctx.delegate(parsed, ctx.signal ?? new AbortController().signal);
    const failed = results.filter((result) => result.status === 'failed');
    if (failed.length === 0) return { results };
    // The call failed as a whole for tool_stats (its `error`), while every task's own result is kept.
    const which = failed.map((result) => `task ${result.task} (${result.id}): ${result.summary}`).join('; ');
    return { results, success: false, error: `${failed.length} of ${results.length} sub-agents failed: ${which}` };
  },
};

/** The tools a delegating agent can run: every implemented one and delegate_task. */
export const TOOLS_WITH_DELEGATION: ReadonlyMap<string, AgentTool> = new Map([...IMPLEMENTED_TOOLS, [DELEGATE_TASK, delegateTaskTool]]);

export interface ChainLink {
  readonly id: string;
  readonly traceId: string;
  readonly depth: number;
}

export interface DelegationSettings {
  readonly runPrompt: PromptRunner;
  /** Sub-agents may delegate again while their depth is below this. */
  readonly maxDepth: number;
  /** Validates a task's toolsets (throws a UsageError naming the valid ones). */
  readonly checkToolsets: (toolsets: readonly string[]) => void;
}

/** A sub-agent that failed: what it was asked, so that a --resume can run it again as it was. */
export interface FailedSubAgent {
  readonly link: ChainLink;
  readonly parentId: string;
  readonly prompt: string;
  readonly toolsets: readonly string[];
  readonly error: unknown;
}

/** What becomes of a chain's sub-agents: each trajectory kept, each failure reported. */
export interface SubAgentSink {
  readonly keep: (record: Trajectory) => void;
  readonly failed: (failure: FailedSubAgent) => void;
}

/**
 * The delegate of one agent in the chain. Sub-agents' trajectories are handed to `sink.keep` as they
 * finish (the caller writes them with the root record, so a root that fails leaves none behind); a
 * sub-agent that fails is reported in the result (and so in the delegating agent's tool_stats) and
 * to `sink.failed` (a failure line, run again on --resume), and the delegating agent carries on.
 */
export function delegateFor(
  parent: ChainLink,
  job: Omit<PromptJob, 'signal' | 'recordId' | 'traceId' | 'toolsets' | 'delegate'>,
  settings: DelegationSettings,
  sink: SubAgentSink,
): Delegate {
  let calls = 0;
  return async (tasks, toolsets, signal) => {
    const call = calls;
    calls += 1;
    return Promise.all(
      tasks.map(async (task, index): Promise<DelegatedResult> => {
        const link: ChainLink = { id: `${parent.id}/d${call}.${index}`, traceId: parent.traceId, depth: parent.depth + 1 };
        const chosen = task.toolsets ?? toolsets.filter((name) => name !== 'delegation' || link.depth < settings.maxDepth);
        try {
          // Toolsets the model named wrong are its mistake, answered in the result: nothing ran, nothing to run again.
          settings.checkToolsets(chosen);
        } catch (error) {
          return { task: index, id: link.id, status: 'failed', summary: error instanceof Error ? error.message : String(error) };
        }
        try {
          const record = await runSubAgent(link, parent.id, task.prompt, chosen, job, settings, sink, signal);
          sink.keep(record);
          return { task: index, id: link.id, status: record.completed ? 'completed' : 'incomplete', summary: finalAnswer(record) };
        } catch (error) {
          signal.throwIfAborted();
          sink.failed({ link, parentId: parent.id, prompt: task.prompt, toolsets: chosen, error });
          return { task: index, id: link.id, status: 'failed', summary: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
  };
}

/**
 * One sub-agent at `link`, its own sub-agents below it (to `sink`) while the depth budget lasts. Also
 * how a --resume runs a failed sub-agent again (promptRuns.ts).
 */
export async function runSubAgent(
  link: ChainLink,
  parentId: string,
  prompt: string,
  toolsets: readonly string[],
  job: Omit<PromptJob, 'signal' | 'recordId' | 'traceId' | 'toolsets' | 'delegate'>,
  settings: DelegationSettings,
  sink: SubAgentSink,
  signal: AbortSignal,
): Promise<Trajectory> {
  return settings.runPrompt({
    ...job,
    row: { prompt },
    signal,
    recordId: link.id,
    traceId: link.traceId,
    toolsets,
    runFields: { ...job.runFields, parent_id: parentId, depth: link.depth },
    ...(link.depth < settings.maxDepth ? { delegate: delegateFor(link, job, settings, sink) } : {}),
  });
}

/** The text of the last gpt turn, without its reasoning and tool calls. */
export function finalAnswer(record: Trajectory): string {
  const last = [...record.conversations].reverse().find((turn) => turn.from === 'gpt');
  return last === undefined ? '' : parseGptValue(last.value).text;
}
