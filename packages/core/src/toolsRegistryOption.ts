// --tools-registry, declared once for every command that reads the tool registry (generate, filter,
// stats); the command loads it with loadToolRegistry(args.toolsRegistry, cwd).
import type { Argv } from 'yargs';

export interface ToolsRegistryArgs {
  toolsRegistry?: string | undefined;
}

export function toolsRegistryOption<T>(y: Argv<T>, group: string) {
  return y.option('tools-registry', {
    type: 'string',
    describe: 'tool registry JSON (schemas/tool-registry.schema.json) instead of the default one',
    group,
  });
}
