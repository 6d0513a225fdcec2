// hermes-generate list-distributions: the toolset distributions of the tool registry with each
// toolset's probability (upstream's --list_distributions, which crashed in B1-B3 by shadowing its own
// function; docs/upstream-differences.md#smaller-fixes).
import { defineCommand, loadToolRegistry, toolsRegistryOption } from '@hermes-datagen/core';

export const listDistributionsCommand = defineCommand({
  command: 'list-distributions',
  describe: 'print the toolset distributions (--distribution) of the tool registry and their probabilities',
  options: (y) => toolsRegistryOption(y, 'Options:'),
  run: async (args, ctx) => {
    const registry = loadToolRegistry(args.toolsRegistry, ctx.io.cwd);
    const lines: string[] = [];
    for (const name of registry.distributions) {
      const { description, toolsets } = registry.distribution(name);
      lines.push(`${name}: ${description}`);
      for (const [toolset, probability] of toolsets) lines.push(`  ${toolset.padEnd(20)} ${probability}%`);
    }
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
});
