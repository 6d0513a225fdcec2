// hermes-to-atropos: not built yet (see notBuiltSpec in core).
import { main as runMain, notBuiltSpec, type CliSpec } from '@hermes-datagen/core';

export const spec: CliSpec = notBuiltSpec('hermes-to-atropos', 'Export Hermes trajectories to what Atropos ingests: SFT, DPO, ScoredDataGroups.');

export function main(): void {
  runMain(spec);
}
