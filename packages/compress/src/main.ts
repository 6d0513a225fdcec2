// hermes-compress: not built yet (see notBuiltSpec in core).
import { main as runMain, notBuiltSpec, type CliSpec } from '@hermes-datagen/core';

export const spec: CliSpec = notBuiltSpec('hermes-compress', 'Bring Hermes trajectories under a token budget (deterministic by default, LLM summariser optional).');

export function main(): void {
  runMain(spec);
}
