// Which toolsets offer no tool here: the registry names every Hermes toolset, but hermes-generate runs
// only the tools of toolRunner.ts (and delegate_task in run mode), so web, browser, vision and the like
// are valid names with nothing to offer. A prompt that gets only such toolsets is offered no tool at
// all; a run under which that can happen says so when it starts, and list-distributions marks them.
import type { ToolRegistry } from '@hermes-datagen/core';
import type { ToolsetSelection } from './toolsetSampling.js';
import type { AgentTool } from './tools/types.js';

/** Whether the toolset holds at least one tool that can run here. */
export function toolsetHasTools(toolset: string, registry: Pick<ToolRegistry, 'toolsOf'>, implemented: ReadonlyMap<string, AgentTool>): boolean {
  return registry.toolsOf([toolset]).some((tool) => implemented.has(tool));
}

/**
 * The run-start warning for a selection under which a prompt can be offered no tool at all (every
 * toolset it can get has none here); undefined when every prompt gets at least one tool.
 */
export function toolsetsWithoutToolsWarning(
  selection: ToolsetSelection,
  registry: Pick<ToolRegistry, 'toolsOf'>,
  implemented: ReadonlyMap<string, AgentTool>,
): string | undefined {
  const named = 'forced' in selection ? selection.forced.map((toolset) => [toolset, 100] as const) : selection.distribution.toolsets;
  // A draw always holds the toolsets drawn at 100%; --toolsets gives every prompt all of its own.
  if (named.some(([toolset, probability]) => probability >= 100 && toolsetHasTools(toolset, registry, implemented))) return undefined;
  const empty = named.filter(([toolset]) => !toolsetHasTools(toolset, registry, implemented)).map(([toolset]) => toolset);
  if (empty.length === 0) return undefined;
  const consequence =
    'forced' in selection
      ? 'every prompt is offered no tool'
      : 'a prompt that draws only these is offered no tool (toolsets_used names them, the system turn lists no tool)';
  const source = 'forced' in selection ? '--toolsets' : `--distribution ${selection.distribution.name}`;
  return `toolsets ${empty.join(', ')} (${source}) have no tools available here (they need outside services): ${consequence}`;
}
