// hermes-verify: not built yet (see notBuiltSpec in core).
import { main as runMain, notBuiltSpec, type CliSpec } from '@hermes-datagen/core';

export const spec: CliSpec = notBuiltSpec('hermes-verify', 'Check trajectories against the result checklist, passing them through (a pipeline stage).');

export function main(): void {
  runMain(spec);
}
