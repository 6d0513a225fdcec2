// The default command of hermes-generate, from parsed flags to a running stream: the endpoint (once,
// from core), the tool registry and toolset choice, the sandbox and the bounded pool of tool
// processes, the tool environment (an allow-list), the workspace root, then generateStream with a
// runner per prompt.
import { randomInt } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import {
  loadPrices,
  loadToolRegistry,
  onForcedExit,
  UsageError,
  type Logger,
  type PriceTable,
  type PricesArgs,
  type RunContext,
  type StreamArgs,
  type ToolsRegistryArgs,
} from '@hermes-datagen/core';
import { describeHeaders, endpointIdentity, resolveEndpoint, type Endpoint, type EndpointArgs } from '@hermes-datagen/core/endpoint';
import type { CallAccounting } from './agentCalls.js';
import { BatchApi } from './batchApi/batchApiClient.js';
import { batchApiSettings, DEFAULT_BATCH_CONCURRENCY, type BatchApiArgs, type BatchApiSettings } from './batchApi/batchApiOptions.js';
import { OPENAI_BATCH_LIMITS } from './batchApi/batchInput.js';
import { BatchLedger } from './batchApi/batchLedger.js';
import { BatchRounds } from './batchApi/batchRounds.js';
import type { ReasoningEffort } from './agentLoop.js';
import { fitConcurrency, openFileLimit } from './fdBudget.js';
import { generateStream } from './generateStream.js';
import { failureContext } from './promptFailure.js';
import { promptRunner } from './promptRunner.js';
import { ReasoningWatch } from './reasoningWatch.js';
import { runBatch } from './run/batchRun.js';
import { TOOLS_WITH_DELEGATION } from './run/delegation.js';
import { modelClient } from './run/modelClient.js';
import { RunBudget, spentBefore } from './run/runBudget.js';
import type { RunDirectory } from './run/runDirectory.js';
import { openRun, recordedFlags, runSettings, type RunArgs } from './run/runMode.js';
import { dockerUnavailable } from './tools/docker.js';
import { chooseSandbox, hostProgramsEnv, removeDeadSandboxDirs, type SandboxMode } from './tools/sandbox.js';
import { detectCgroups, PromptCgroups } from './tools/promptCgroups.js';
import { parseSize, type ToolLimits } from './tools/toolLimits.js';
import { toolEnv } from './tools/toolEnv.js';
import { IMPLEMENTED_TOOLS } from './tools/toolRunner.js';
import { PROCESS_HELPER_SCRIPT } from './tools/processHelperClient.js';
import { ToolProcesses } from './tools/toolProcesses.js';
import { defaultWorkspaceRoot, RunWorkspaces } from './tools/workspace.js';
import { toolsetsWithoutToolsWarning } from './toolsetAvailability.js';
import { selectToolsets, toolsetSelectionName } from './toolsetSampling.js';

/** A run's checkpoint is rewritten at most this often (and at its end). */
const CHECKPOINT_INTERVAL_MS = 2_000;

/** Upstream cuts a tool result at 100,000 characters; tools here cap their output at this many bytes. */
export const MAX_TOOL_OUTPUT_BYTES = 100_000;

/** Prompts at once in stream mode without -c. */
export const DEFAULT_CONCURRENCY = 4;

export interface GenerateArgs extends EndpointArgs, ToolsRegistryArgs, RunArgs, PricesArgs, BatchApiArgs {
  maxTurns: number;
  reasoningEffort?: ReasoningEffort;
  toolsets?: string;
  distribution: string;
  seed?: number;
  workspaceRoot?: string;
  cwdRoot?: string;
  keepWorkspaces: boolean;
  /** One name, or several when --tool-env is repeated. */
  toolEnv?: string | string[];
  toolNetwork: boolean;
  toolCgroups: boolean;
  toolMaxProcs: number;
  toolMemory: string;
  toolCpuSeconds: number;
  sandbox: SandboxMode;
  toolTimeout: number;
  requestTimeout: number;
  toolConcurrency: number;
}

export async function runGenerate(args: GenerateArgs & Pick<StreamArgs, 'files'>, ctx: RunContext): Promise<number> {
  const { memoryBytes, passedEnv } = checkedValues(args);
  const { cwd, env } = ctx.io;
  const settings = runSettings(args);
  const batchApi = batchApiSettings(args);

  const prices = loadPrices(args, cwd);
  const registry = loadToolRegistry(args.toolsRegistry, cwd);
  const toolsets = selectToolsets(registry, args);
  const delegation = args.runName !== undefined && args.maxDepth > 0;
  const noTools = toolsetsWithoutToolsWarning(toolsets, registry, delegation ? TOOLS_WITH_DELEGATION : IMPLEMENTED_TOOLS);
  if (noTools !== undefined) ctx.log.warn(noTools);

  const workspaceRoot = args.workspaceRoot === undefined ? defaultWorkspaceRoot() : resolve(cwd, args.workspaceRoot);
  const { sandbox, cgroups } = await toolSandbox(args, { memoryBytes, workspaceRoot }, ctx);
  const endpoint = await resolveEndpoint(args, { env, cwd });
  for (const warning of endpoint.warnings) ctx.log.warn(warning.message);
  const identity = endpointIdentity(endpoint);
  const endpointFacts = { host: identity.endpoint_host, model: identity.model, key_fingerprint: identity.key_fingerprint ?? null };
  // Under --batch-api a waiting prompt holds no connection: every prompt of the selection may wait at once.
  const fitted =
    batchApi === undefined
      ? fitConcurrency(settings?.concurrency ?? args.concurrency ?? DEFAULT_CONCURRENCY, openFileLimit())
      : { concurrency: Math.min(args.concurrency ?? DEFAULT_BATCH_CONCURRENCY, args.maxConcurrency ?? Infinity) };
  if (fitted.warning !== undefined) ctx.log.warn(fitted.warning);
  const { concurrency } = fitted;
  const run =
    args.runName === undefined
      ? undefined
      : await openRun({ ...args, runName: args.runName }, ctx, {
          files: args.files,
          endpoint: endpointFacts,
          registry,
          seed: args.seed,
          // The headers as logs name them: a secret header's value only by its fingerprint.
          settings: { ...recordedFlags(args), ...(args.header === undefined ? {} : { header: endpoint.headers.map((header) => describeHeaders([header])) }) },
          workspaceRoot: args.workspaceRoot === undefined ? workspaceRoot : undefined,
        });
  // What the run spends is followed when it is priced (the progress line's dollars) or has a budget.
  const limited = settings !== undefined && (settings.budgetLimits.maxCostUsd !== undefined || settings.budgetLimits.maxTokens !== undefined);
  const budget =
    run === undefined || settings === undefined || (prices === undefined && !limited)
      ? undefined
      : new RunBudget(settings.budgetLimits, await spentBefore(run.dir));
  if (settings?.budgetLimits.maxCostUsd !== undefined && prices === undefined) {
    ctx.log.warn('--max-cost without --prices counts only the dollars a gateway reports itself (usage.cost): set --prices to count every call');
  }
  const accounting = callAccounting(prices, budget, batchApi !== undefined, ctx.log);
  const quota = new AbortController();
  const rounds = batchApi === undefined || run === undefined ? undefined : await batchRounds(endpoint, run, batchApi, ctx);
  const model = rounds
    ? { client: rounds.client, limiter: undefined }
    : modelClient(endpoint, { concurrency, limits: settings, log: ctx.log, onExhausted: (reason) => quota.abort(reason) });
  const cwdRoot = resolve(cwd, args.cwdRoot ?? datasetDirectory(args.files));
  const workspaces = new RunWorkspaces(workspaceRoot, args.workspaceRoot === undefined, { cwdRoot, owner: sandbox.host.owner });
  const processes = new ToolProcesses({ limit: args.toolConcurrency, isolation: sandbox.host, helperScript: PROCESS_HELPER_SCRIPT, cgroups });
  // A forced exit (a second Ctrl-C) skips the prompts' own cleanup: their processes and workspaces go here.
  const forgetForcedExit = onForcedExit(() => {
    processes.killAll();
    if (!args.keepWorkspaces) workspaces.removeNow();
  });

  const reasoningWatch = new ReasoningWatch(args.reasoningEffort, (message) => ctx.log.warn(message, undefined, 'no-reasoning'));
  const runPrompt = promptRunner({
    // As many connections as prompts run at once: each waits on at most one model call.
    client: model.client,
    endpoint: { model: identity.model, host: identity.endpoint_host, keyFingerprint: identity.key_fingerprint },
    requestTimeoutMs: args.requestTimeout * 1000,
    failures: failureContext(endpoint, args.requestTimeout * 1000),
    registry,
    // Without --seed a seed is drawn, and recorded in every record, so any run can be repeated.
    // A resumed run keeps the seed its manifest recorded.
    toolsets: { ...toolsets, seed: run?.seed ?? args.seed ?? randomInt(2 ** 31) },
    maxTurns: args.maxTurns,
    reasoningEffort: args.reasoningEffort,
    workspaces,
    keepWorkspaces: args.keepWorkspaces,
    sandbox: args.sandbox,
    toolTimeoutMs: args.toolTimeout * 1000,
    maxToolOutputBytes: MAX_TOOL_OUTPUT_BYTES,
    secret: endpoint.apiKey,
    // The key and every other secret are registered (core's registerSecret): toolEnv drops a value holding one.
    toolEnv: (row, workspace) =>
      toolEnv(env, { ...(row.env === undefined ? {} : { rowEnv: row.env }), workspace, passed: passedEnv, docker: args.sandbox === 'docker' }),
    processes,
    cwd,
    batchNum: 0,
    reasoningWatch,
    accounting,
  });
  try {
    if (run === undefined || settings === undefined)
      return await generateStream(ctx, { concurrency, graceMs: args.grace * 1000, runPrompt, secret: endpoint.apiKey });
    return await runBatch(ctx, {
      ...settings,
      concurrency,
      run,
      runName: run.manifest.run_name,
      forceResume: args.forceResume,
      discardNoReasoning: args.discardNoReasoning,
      distribution: toolsetSelectionName(toolsets),
      model: identity.model,
      runPrompt,
      secret: endpoint.apiKey,
      checkpointIntervalMs: CHECKPOINT_INTERVAL_MS,
      quotaExhausted: quota.signal,
      limiter: model.limiter,
      budget,
      priced: prices !== undefined,
      delegation: args.maxDepth > 0 ? { maxDepth: args.maxDepth, checkToolsets: (toolsets) => void registry.toolsOf(toolsets) } : undefined,
      progressDetail: rounds === undefined ? undefined : () => rounds.progressLine(),
      onCommitted: rounds === undefined ? undefined : (id) => rounds.committed(id),
    });
  } finally {
    await rounds?.close(batchApi?.cancelOnExit === true);
    reasoningWatch.finish();
    forgetForcedExit();
    if (args.keepWorkspaces) ctx.log.info(`workspaces kept under ${workspaces.root}`);
    else await workspaces.remove();
    run?.lock.release();
  }
}

/**
 * What tool processes run in: the sandbox --sandbox chooses (docker checked first), hiding the files
 * that hold the key, with the run's network policy and limits, and the per-prompt cgroups where they
 * can be had. Sweeps first what killed invocations left in the temp directory.
 */
async function toolSandbox(args: GenerateArgs, place: { memoryBytes: number; workspaceRoot: string }, ctx: RunContext) {
  const { cwd, env } = ctx.io;
  if (args.sandbox === 'docker') {
    const problem = await dockerUnavailable(env);
    if (problem) throw new UsageError(problem);
  }
  // The files that hold the key are hidden from tools wherever the sandbox would show them.
  const secretFiles = [args.envFile, args.config].filter((file): file is string => file !== undefined).map((file) => resolve(cwd, file));
  const limits = { maxProcs: args.toolMaxProcs, memoryBytes: place.memoryBytes, cpuSeconds: args.toolCpuSeconds };
  const cgroups = promptCgroups(args, limits, ctx);
  const policy = { network: args.toolNetwork, limits, cgroups: cgroups?.layout };
  // A SIGKILL skips the exit that removes an invocation's sandbox directories.
  const swept = removeDeadSandboxDirs();
  if (swept > 0) ctx.log.info(`removed ${swept} sandbox temp director${swept === 1 ? 'y' : 'ies'} of hermes-generate processes that are gone (${tmpdir()})`);
  const sandbox = chooseSandbox(args.sandbox, hostProgramsEnv(env), { hide: secretFiles, workspaceRoot: place.workspaceRoot, policy });
  if (typeof sandbox === 'string') throw new UsageError(sandbox);
  if (sandbox.warning !== undefined) ctx.log.warn(sandbox.warning);
  ctx.log.info(sandbox.description);
  return { sandbox, cgroups };
}

/** --batch-api's model client: rounds of batches at the endpoint, with the run directory's ledger. */
async function batchRounds(endpoint: Endpoint, run: RunDirectory, settings: BatchApiSettings, ctx: RunContext): Promise<BatchRounds> {
  return new BatchRounds({
    api: new BatchApi(endpoint),
    ledger: await BatchLedger.open(run.dir, (id) => run.done.has(id), ctx.log),
    limits: OPENAI_BATCH_LIMITS,
    pollMs: settings.pollMs,
    retries: settings.retries,
    runName: run.manifest.run_name,
    log: ctx.log,
    onChange: () => ctx.progress.tick(0),
  });
}

/** The values no option parser checks: usage errors before anything starts; the tool memory in bytes and the --tool-env names. */
function checkedValues(args: GenerateArgs): { memoryBytes: number; passedEnv: string[] } {
  if (args.concurrency !== undefined) positiveInteger(args.concurrency, '--concurrency');
  positiveInteger(args.maxTurns, '--max-turns');
  positiveInteger(args.toolConcurrency, '--tool-concurrency');
  positiveInteger(args.toolMaxProcs, '--tool-max-procs');
  positiveInteger(args.toolCpuSeconds, '--tool-cpu-seconds');
  const memoryBytes = parseSize(args.toolMemory);
  if (memoryBytes === undefined) throw new UsageError(`--tool-memory must be a size such as 512m or 4g, got ${args.toolMemory}`);
  const passedEnv = args.toolEnv === undefined ? [] : [args.toolEnv].flat();
  for (const name of passedEnv) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--tool-env takes a variable's name, got "${name}"`);
  if (!(args.toolTimeout > 0)) throw new UsageError(`--tool-timeout must be a number of seconds above 0, got ${String(args.toolTimeout)}`);
  if (!(args.requestTimeout > 0)) throw new UsageError(`--request-timeout must be a number of seconds above 0, got ${String(args.requestTimeout)}`);
  if (args.seed !== undefined && !Number.isSafeInteger(args.seed)) throw new UsageError(`--seed must be an integer, got ${String(args.seed)}`);
  return { memoryBytes, passedEnv };
}

/** What every call counts toward (agentCalls.ts), when anything does: its price, the run's budget, the batch discount. */
function callAccounting(prices: PriceTable | undefined, budget: RunBudget | undefined, batch: boolean, log: Logger): CallAccounting | undefined {
  if (prices === undefined && budget === undefined && !batch) return undefined;
  const unpriced = new Set<string>();
  return {
    batch,
    prices,
    unpriced: (model) => {
      if (unpriced.has(model)) return;
      unpriced.add(model);
      log.warn(`--prices has no price for model ${model}: records with its calls get no cost_usd`, undefined, 'no-price');
    },
    spent: budget === undefined ? undefined : (usd, tokens) => budget.spent(usd, tokens),
  };
}

/** Where rows' cwd may lie by default: the first dataset file's directory, the current one for stdin. */
function datasetDirectory(files: readonly string[] | undefined): string {
  const first = files?.find((file) => file !== '-');
  return first === undefined ? '.' : dirname(first);
}

function positiveInteger(value: number, flag: string): void {
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} must be a whole number from 1 up, got ${String(value)}`);
}

/**
 * The run's per-prompt cgroups, detected once: where this machine has writable ones and --tool-cgroups
 * is on, and not under --sandbox docker (whose containers are bounded by docker). Otherwise rlimits
 * per process bound the tools, and a cgroup tree that is there but unusable says why at start.
 */
function promptCgroups(args: GenerateArgs, limits: ToolLimits, ctx: RunContext): PromptCgroups | undefined {
  if (!args.toolCgroups || args.sandbox === 'docker') return undefined;
  const layout = detectCgroups();
  if (layout === undefined) return undefined;
  const cgroups = PromptCgroups.open(layout, limits.maxProcs, limits.memoryBytes);
  if (typeof cgroups !== 'string') return cgroups;
  ctx.log.warn(`${cgroups}; tool processes are bounded by rlimits per process instead`);
  return undefined;
}
