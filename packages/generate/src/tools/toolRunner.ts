// Runs the tools: which tools hermes-generate can really run, which of them to offer for the sampled
// toolsets, and the one funnel through which the agent loop runs them.
//
// Core's registry (packages/core/src/registry.ts) is the tool data: every valid tool name and its
// toolset; this file owns only implementations. A tool is offered when one of the sampled toolsets holds it in the
// registry in use (so it is a valid name, which the hallucinated-name filter requires) and it is
// implemented here. Tools that need the outside world (web_search, web_extract, browser_*,
// vision_analyze, image_generate, text_to_speech, mixture_of_agents, ...) are valid names but are
// never offered: they would need a configured service, and there is no such configuration yet.
// `process` (background process management) is not offered either: the issue asks for none, and
// terminal stops a command's background processes when it returns, so there would be none to manage.
import type { ToolDefinition, ToolRegistry } from '@hermes-datagen/core';
import type { ToolArgs } from './args.js';
import { executeCodeTool } from './executeCode.js';
import { patchTool } from './patch.js';
import { readFileTool } from './readFile.js';
import { searchFilesTool } from './searchFiles.js';
import { terminalTool } from './terminal.js';
import { todoTool } from './todo.js';
import { retryExhausted } from './exhaustion.js';
import { ToolError } from './toolError.js';
import type { AgentTool, ToolContext } from './types.js';
import { writeFileTool } from './writeFile.js';

export const IMPLEMENTED_TOOLS: ReadonlyMap<string, AgentTool> = new Map(
  [executeCodeTool, patchTool, readFileTool, searchFilesTool, terminalTool, todoTool, writeFileTool].map((tool) => [tool.name, tool]),
);

/**
 * The implemented tools to offer for these toolsets (core's registry expands includes and aliases,
 * and throws a UsageError for an unknown toolset), sorted by name as upstream lists them.
 */
export function offeredTools(
  toolsetNames: readonly string[],
  registry: Pick<ToolRegistry, 'toolsOf'>,
  implemented: ReadonlyMap<string, AgentTool> = IMPLEMENTED_TOOLS,
): AgentTool[] {
  return registry.toolsOf(toolsetNames).flatMap((name) => implemented.get(name) ?? []);
}

/** What the system turn and the API request list for a tool. */
export function toolDefinition(tool: AgentTool): ToolDefinition {
  return { name: tool.name, description: tool.description, parameters: { ...tool.parameters } };
}

/**
 * Runs a tool and returns the tool message content: the result's JSON text. Never throws: a
 * ToolError becomes `{"error": message}`, anything unexpected `{"error": "<tool> failed: ..."}`,
 * both counted as failures by upstream's rule (docs/rules.md#tool-success). `available` limits which
 * tools may run (pass the offered ones); by default every implemented tool may.
 */
export async function executeTool(
  name: string,
  args: unknown,
  ctx: ToolContext,
  available: readonly AgentTool[] = [...IMPLEMENTED_TOOLS.values()],
): Promise<string> {
  const tool = available.find((candidate) => candidate.name === name);
  if (tool === undefined) return JSON.stringify({ error: `tool '${name}' is not available in this task` });
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return JSON.stringify({ error: `the arguments of ${name} must be one JSON object` });
  }
  try {
    // Out of file descriptors at an open: wait and run the call again (exhaustion.ts), never a failed call for it.
    return JSON.stringify((await retryExhausted(() => tool.run(args as ToolArgs, ctx), ctx.signal)) ?? null);
  } catch (error) {
    if (error instanceof ToolError) return JSON.stringify({ error: error.message });
    return JSON.stringify({ error: `${name} failed: ${error instanceof Error ? error.message : String(error)}` });
  }
}
