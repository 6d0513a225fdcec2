// One prompt row -> one trajectory: its id, its toolsets, a fresh workspace with the row's cwd
// copied in, the offered tools bound to that workspace, the agent run, the record. The workspace is
// removed afterwards unless --keep-workspaces.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promptId, redact, type ApiKey, type PromptRow, type ToolDefinition, type ToolRegistry, type Trajectory } from '@hermes-datagen/core';
import { AgentCalls, type CallAccounting } from './agentCalls.js';
import { runAgent, type ChatClient, type ReasoningEffort } from './agentLoop.js';
import type { PromptJob, PromptRunner } from './generateStream.js';
import { AgentRunError, PromptSetupError, type FailureContext } from './promptFailure.js';
import { TOOLS_WITH_DELEGATION } from './run/delegation.js';
import { executeTool, offeredTools, toolDefinition } from './tools/toolRunner.js';
import type { SandboxMode } from './tools/sandbox.js';
import type { ToolProcesses } from './tools/toolProcesses.js';
import type { AgentTool, DockerSandbox, ToolContext } from './tools/types.js';
import type { RunWorkspaces } from './tools/workspace.js';
import type { ReasoningWatch } from './reasoningWatch.js';
import { buildTrajectory, type EndpointFacts } from './trajectory.js';
import { toolsetsForPrompt, type ToolsetChoice } from './toolsetSampling.js';

export interface PromptRunnerSettings {
  readonly client: ChatClient;
  readonly endpoint: EndpointFacts;
  readonly registry: ToolRegistry;
  readonly toolsets: ToolsetChoice;
  readonly maxTurns: number;
  readonly reasoningEffort?: ReasoningEffort | undefined;
  readonly workspaces: RunWorkspaces;
  readonly keepWorkspaces: boolean;
  readonly sandbox: SandboxMode;
  readonly toolTimeoutMs: number;
  readonly maxToolOutputBytes: number;
  /** Bounds each HTTP attempt of a model call (--request-timeout). */
  readonly requestTimeoutMs: number;
  /** What the diagnosis of a failed model call names (promptFailure.ts). */
  readonly failures: FailureContext;
  /** The API key, redacted from every tool result. */
  readonly secret: ApiKey;
  /** The environment of the row's tool processes: an allow-list plus the row's own env (tools/toolEnv.ts). */
  readonly toolEnv: (row: PromptRow, workspace: string | undefined) => Readonly<Record<string, string>>;
  /** Starts every tool process of the run: bounded in number, in the run's sandbox. */
  readonly processes: ToolProcesses;
  /** A row's relative cwd is taken from here. */
  readonly cwd: string;
  /** 0 in stream mode. */
  readonly batchNum: number;
  /** Told every agent run's messages: the warning for a run that asked for reasoning and gets none. */
  readonly reasoningWatch?: ReasoningWatch | undefined;
  /** Prices and the budget: each agent's calls are counted (agentCalls.ts); none, the client is used as it is. */
  readonly accounting?: CallAccounting | undefined;
}

export function promptRunner(settings: PromptRunnerSettings): PromptRunner {
  const knownToolNames = new Set(settings.registry.names);
  const offers = new ToolOffers(settings.registry);
  return async ({
    row,
    promptIndex,
    signal,
    recordId,
    batchNum,
    traceId,
    toolsets: given,
    delegate,
    requestTags,
    runFields,
    journal,
    waits,
  }: PromptJob): Promise<Trajectory> => {
    const started = performance.now();
    const id = recordId ?? promptId(row, promptIndex);
    const toolsets = given ?? toolsetsForPrompt(settings.registry, settings.toolsets, id);
    const { tools, offered } = offers.of(toolsets, delegate !== undefined);
    const sandbox = sandboxFor(row, settings.sandbox);
    const workspace = tools.every((tool) => tool.workspaceFree === true)
      ? undefined
      : await settings.workspaces.create(row.cwd === undefined ? undefined : resolve(settings.cwd, row.cwd));
    const calls =
      settings.accounting === undefined && journal === undefined
        ? undefined
        : // A batch API client names each request by its record id and turn.
          new AgentCalls(settings.client, settings.endpoint.model, settings.accounting ?? {}, journal, settings.accounting?.batch === true ? id : undefined);
    // All the prompt's tool processes, across its calls, share one cgroup's limits; made on first use.
    const cgroup = settings.processes.promptCgroup();
    try {
      let env: Readonly<Record<string, string>> | undefined;
      const ctx: ToolContext = {
        // No tool offered here reads it when there is no workspace.
        workspace: workspace?.path ?? '',
        // Worked out when a tool first starts a process: a prompt whose tools start none (todo) never needs it.
        get env() {
          env ??= settings.toolEnv(row, workspace?.path);
          return env;
        },
        processes: settings.processes,
        ...(cgroup === undefined ? {} : { cgroup }),
        timeoutMs: settings.toolTimeoutMs,
        maxOutputBytes: settings.maxToolOutputBytes,
        signal,
        todo: { items: [] },
        ...(sandbox ? { sandbox } : {}),
        ...(delegate ? { delegate: (tasks, delegateSignal) => delegate(tasks, toolsets, delegateSignal) } : {}),
      };
      const run = await runAgent({
        prompt: row.prompt,
        model: settings.endpoint.model,
        client: calls?.client ?? settings.client,
        requestTags,
        tools: offered,
        knownToolNames,
        // A tool result that shows the key (a `cat .env`) is redacted before the model sees it.
        runTool: async (name, args) => redact(await executeTool(name, args, ctx, tools), settings.secret),
        maxTurns: settings.maxTurns,
        reasoningEffort: settings.reasoningEffort,
        requestTimeoutMs: settings.requestTimeoutMs,
        signal,
        waits,
      }).catch((error: unknown) => {
        throw new AgentRunError(error, settings.failures);
      });
      settings.reasoningWatch?.observe(run.messages);
      return buildTrajectory({
        id,
        promptIndex,
        prompt: row.prompt,
        run,
        offeredTools: offered,
        toolsets,
        registry: settings.registry,
        batchNum: batchNum ?? settings.batchNum,
        endpoint: settings.endpoint,
        wallTimeS: (performance.now() - started) / 1000,
        traceId: traceId ?? randomUUID(),
        seed: settings.toolsets.seed,
        finishedAt: new Date(),
        runFields,
        costUsd: calls?.costUsd,
        replayedCalls: calls?.replayed,
      });
    } finally {
      // Processes a call left running (a setsid daemon) end with the prompt, before its workspace goes.
      await cgroup?.close();
      if (!settings.keepWorkspaces) await workspace?.cleanup();
    }
  };
}

/** `image` wins over `docker_image`, as upstream. Without --sandbox docker commands run on the host. */
function sandboxFor(row: PromptRow, mode: SandboxMode): DockerSandbox | undefined {
  if (mode !== 'docker') return undefined;
  const image = row.image ?? row.docker_image;
  if (image === undefined) {
    throw new PromptSetupError(
      "--sandbox docker runs each prompt in its row's image, and this row has no docker_image (or image): add one, or run without --sandbox docker",
    );
  }
  return { kind: 'docker', image };
}

/** Most distinct toolset choices kept; beyond it the offers are worked out again. */
const MAX_OFFERS = 1024;

/**
 * The tools offered for one choice of toolsets and their definitions, worked out once per choice
 * rather than per prompt: the same definitions then go into every request, and the record's system
 * turn is rendered once for them (core hermesSystemPrompt keeps it by the array).
 */
class ToolOffers {
  private readonly offers = new Map<string, { readonly tools: AgentTool[]; readonly offered: ToolDefinition[] }>();

  public constructor(private readonly registry: ToolRegistry) {}

  public of(toolsets: readonly string[], delegation: boolean): { readonly tools: AgentTool[]; readonly offered: ToolDefinition[] } {
    const key = `${delegation ? 'delegation' : ''}\n${toolsets.join('\n')}`;
    let offer = this.offers.get(key);
    if (!offer) {
      const tools = offeredTools(toolsets, this.registry, delegation ? TOOLS_WITH_DELEGATION : undefined);
      offer = { tools, offered: tools.map(toolDefinition) };
      if (this.offers.size >= MAX_OFFERS) this.offers.clear();
      this.offers.set(key, offer);
    }
    return offer;
  }
}
