// hermes-compress: not built yet. It has its --help and --version; running it says so and exits 2 (usage),
// so that no pipeline mistakes it for a working stage.
import { defineCommand, main as runMain, runCli, UsageError, type CliSpec } from '@hermes-datagen/core';

export const spec: CliSpec = {
  name: 'hermes-compress',
  summary: 'Bring Hermes trajectories under a token budget (deterministic by default, LLM summariser optional).',
  commands: [
    defineCommand({
      command: '$0 [files..]',
      describe: 'not built yet: this CLI arrives with its own issue',
      stream: true,
      run: () => {
        throw new UsageError('hermes-compress is not built yet; it arrives with its own issue (see the README)');
      },
    }),
  ],
};

export function main(): void {
  runMain(spec);
}

export { runCli };
