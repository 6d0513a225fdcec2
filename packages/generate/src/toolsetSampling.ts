// Which toolsets a prompt gets: the forced --toolsets, or a draw from the --distribution. Each
// prompt draws from its own random source, seeded from the run's seed and the prompt's id, so a
// prompt gets the same toolsets whatever the concurrency, the order prompts finish in, or which
// other prompts the run holds (a resumed run samples the same as the first one).
import { createHash } from 'node:crypto';
import { createRng, type Distribution, type ToolRegistry } from '@hermes-datagen/core';

/**
 * What the prompts' toolsets come from, checked against the registry before any prompt runs: the forced
 * --toolsets, which every prompt gets, or the --distribution each prompt draws its own from.
 */
export type ToolsetSelection = { readonly forced: readonly string[] } | { readonly distribution: Distribution };

/** The selection and the run's seed, from which each prompt's draw is seeded. */
export type ToolsetChoice = ToolsetSelection & { readonly seed: number };

/**
 * --toolsets (comma-separated) when given, else --distribution, looked up in the registry once: an
 * unknown name is a UsageError that lists the valid ones (the registry's own messages).
 */
export function selectToolsets(
  registry: Pick<ToolRegistry, 'checkToolset' | 'distribution'>,
  flags: { readonly toolsets?: string | undefined; readonly distribution: string },
): ToolsetSelection {
  if (flags.toolsets === undefined) return { distribution: registry.distribution(flags.distribution) };
  const forced = flags.toolsets
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of forced) registry.checkToolset(name);
  return { forced };
}

/** The run's name for the choice, as batch statistics and the manifest record it. */
export function toolsetSelectionName(choice: ToolsetSelection): string {
  return 'forced' in choice ? choice.forced.join(',') : choice.distribution.name;
}

/** Every toolset a prompt may get: the forced ones, or each the distribution may draw (doctor's probe offers them all). */
export function possibleToolsets(choice: ToolsetSelection): string[] {
  if ('forced' in choice) return [...choice.forced];
  return choice.distribution.toolsets.filter(([, percent]) => percent > 0).map(([name]) => name);
}

export function toolsetsForPrompt(registry: Pick<ToolRegistry, 'sampleToolsets'>, choice: ToolsetChoice, promptId: string): string[] {
  if ('forced' in choice) return [...choice.forced];
  return registry.sampleToolsets(choice.distribution.name, createRng(promptSeed(choice.seed, promptId)));
}

/** 48 bits of SHA-256 over the run seed and the prompt id: a safe integer for createRng. */
export function promptSeed(seed: number, promptId: string): number {
  return createHash('sha256').update(`${seed}\n${promptId}`, 'utf8').digest().readUIntBE(0, 6);
}
