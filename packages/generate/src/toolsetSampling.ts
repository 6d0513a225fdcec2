// Which toolsets a prompt gets: the forced --toolsets, or a draw from the --distribution. Each
// prompt draws from its own random source, seeded from the run's seed and the prompt's id, so a
// prompt gets the same toolsets whatever the concurrency, the order prompts finish in, or which
// other prompts the run holds (a resumed run samples the same as the first one).
import { createHash } from 'node:crypto';
import { createRng, type ToolRegistry } from '@hermes-datagen/core';

export interface ToolsetChoice {
  /** --toolsets: every prompt gets exactly these. */
  readonly forced?: readonly string[] | undefined;
  readonly distribution: string;
  readonly seed: number;
}

export function toolsetsForPrompt(registry: Pick<ToolRegistry, 'sampleToolsets'>, choice: ToolsetChoice, promptId: string): string[] {
  if (choice.forced !== undefined) return [...choice.forced];
  return registry.sampleToolsets(choice.distribution, createRng(promptSeed(choice.seed, promptId)));
}

/** 48 bits of SHA-256 over the run seed and the prompt id: a safe integer for createRng. */
export function promptSeed(seed: number, promptId: string): number {
  return createHash('sha256').update(`${seed}\n${promptId}`, 'utf8').digest().readUIntBE(0, 6);
}
