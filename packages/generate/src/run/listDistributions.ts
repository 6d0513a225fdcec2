// hermes-generate list-distributions: the toolset distributions of the tool registry with each
// toolset's probability (upstream's --list_distributions, which crashed in B1-B3 by shadowing its own
// function; docs/upstream-differences.md#smaller-fixes). A toolset with no tool that runs here (web,
// browser, vision...) is marked: a prompt that draws only such toolsets is offered no tool.
import { defineCommand, loadToolRegistry, toolsRegistryOption } from '@hermes-datagen/core';
import { toolsetHasTools } from '../toolsetAvailability.js';
import { TOOLS_WITH_DELEGATION } from './delegation.js';

export const listDistributionsCommand = defineCommand({
  command: 'list-distributions',
  describe:
    'print the toolset distributions (--distribution) of the tool registry and their probabilities, marking the toolsets that have no tools available here',
  options: (y) => toolsRegistryOption(y, 'Options:'),
  run: async (args, ctx) => {
    const registry = loadToolRegistry(args.toolsRegistry, ctx.io.cwd);
    const lines: string[] = [];
    for (const name of registry.distributions) {
      const { description, toolsets } = registry.distribution(name);
      lines.push(`${name}: ${description}`);
      for (const [toolset, probability] of toolsets) {
        const note = toolsetHasTools(toolset, registry, TOOLS_WITH_DELEGATION) ? '' : '   no tools available here (never offered)';
        lines.push(`  ${toolset.padEnd(20)} ${`${probability}%`.padStart(4)}${note}`);
      }
    }
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
});
