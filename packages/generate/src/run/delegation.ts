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
  boundsItsOwnTime: true,
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
    return { results: await ctx.delegate(parsed, ctx.signal ?? new AbortController().signal) };
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

/**
 * The delegate of one agent in the chain. Sub-agents' trajectories are handed to `keep` as they
 * finish (the caller writes them with the root record, so a root that fails leaves none behind); a
 * sub-agent that fails is reported in the result, and the delegating agent carries on.
 */
export function delegateFor(
  parent: ChainLink,
  job: Omit<PromptJob, 'signal' | 'recordId' | 'traceId' | 'toolsets' | 'delegate'>,
  settings: DelegationSettings,
  keep: (record: Trajectory) => void,
): Delegate {
  let calls = 0;
  return async (tasks, toolsets, signal) => {
    const call = calls;
    calls += 1;
    return Promise.all(
      tasks.map(async (task, index): Promise<DelegatedResult> => {
        const link: ChainLink = { id: `${parent.id}/d${call}.${index}`, traceId: parent.traceId, depth: parent.depth + 1 };
        try {
          const chosen = task.toolsets ?? toolsets.filter((name) => name !== 'delegation' || link.depth < settings.maxDepth);
          settings.checkToolsets(chosen);
          const record = await settings.runPrompt({
            ...job,
            row: { prompt: task.prompt },
            signal,
            recordId: link.id,
            traceId: link.traceId,
            toolsets: chosen,
            runFields: { ...job.runFields, parent_id: parent.id, depth: link.depth },
            ...(link.depth < settings.maxDepth ? { delegate: delegateFor(link, job, settings, keep) } : {}),
          });
          keep(record);
          return { task: index, id: link.id, status: record.completed ? 'completed' : 'incomplete', summary: finalAnswer(record) };
        } catch (error) {
          signal.throwIfAborted();
          return { task: index, id: link.id, status: 'failed', summary: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
  };
}

/** The text of the last gpt turn, without its reasoning and tool calls. */
export function finalAnswer(record: Trajectory): string {
  const last = [...record.conversations].reverse().find((turn) => turn.from === 'gpt');
  return last === undefined ? '' : parseGptValue(last.value).text;
}
