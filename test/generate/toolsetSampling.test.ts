import { describe, expect, it } from 'vitest';
import { loadToolRegistry, UsageError } from '@hermes-datagen/core';
import { promptSeed, selectToolsets, toolsetSelectionName, toolsetsForPrompt } from '@hermes-datagen/generate/internal/toolsetSampling.js';

const registry = loadToolRegistry();
const ids = Array.from({ length: 40 }, (_, i) => `p${i}-abc`);

describe('toolsetsForPrompt', () => {
  it('gives a prompt the same toolsets for the same seed, whatever order the prompts come in', () => {
    const choice = { distribution: registry.distribution('balanced'), seed: 42 };
    const forward = ids.map((id) => toolsetsForPrompt(registry, choice, id));
    const backward = [...ids]
      .reverse()
      .map((id) => toolsetsForPrompt(registry, choice, id))
      .reverse();
    expect(backward).toEqual(forward);
  });

  it('draws differently for different prompts and different seeds', () => {
    const draws = (seed: number): string[] =>
      ids.map((id) => toolsetsForPrompt(registry, { distribution: registry.distribution('balanced'), seed }, id).join(','));
    expect(new Set(draws(42)).size).toBeGreaterThan(10);
    expect(draws(43)).not.toEqual(draws(42));
  });

  it('keeps the distribution order and its certain toolsets', () => {
    for (const id of ids) {
      expect(toolsetsForPrompt(registry, { distribution: registry.distribution('terminal_only'), seed: 1 }, id)).toEqual(['terminal', 'file']);
      const sampled = toolsetsForPrompt(registry, { distribution: registry.distribution('development'), seed: 1 }, id);
      const order = ['terminal', 'file', 'moa', 'web', 'vision'];
      expect(sampled.map((t) => order.indexOf(t))).toEqual([...sampled.map((t) => order.indexOf(t))].sort((a, b) => a - b));
    }
  });

  it('gives every prompt the forced toolsets when they are given', () => {
    expect(toolsetsForPrompt(registry, { forced: ['file', 'todo'], seed: 1 }, 'p0-x')).toEqual(['file', 'todo']);
  });
});

describe('selectToolsets', () => {
  it('takes --toolsets as comma-separated names, spaces and empty entries dropped, before --distribution', () => {
    const selection = selectToolsets(registry, { toolsets: ' file, todo,,', distribution: 'no-such-distribution' });
    expect(selection).toEqual({ forced: ['file', 'todo'] });
    expect(toolsetSelectionName(selection)).toBe('file,todo');
  });

  it('looks the --distribution up once, and names the run after it', () => {
    const selection = selectToolsets(registry, { distribution: 'terminal_only' });
    expect(selection).toEqual({ distribution: registry.distribution('terminal_only') });
    expect(toolsetSelectionName(selection)).toBe('terminal_only');
  });

  it('refuses an unknown toolset or distribution with a usage error listing the valid names', () => {
    expect(() => selectToolsets(registry, { toolsets: 'file,nope', distribution: 'default' })).toThrow(UsageError);
    expect(() => selectToolsets(registry, { toolsets: 'file,nope', distribution: 'default' })).toThrow(/unknown toolset "nope"; valid toolsets: .*\bfile\b/);
    expect(() => selectToolsets(registry, { distribution: 'nope' })).toThrow(/unknown distribution "nope"; valid distributions: .*\bdefault\b/);
  });
});

describe('promptSeed', () => {
  it('is a safe integer that depends on both the seed and the id', () => {
    const seed = promptSeed(7, 'task-1');
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(promptSeed(7, 'task-1')).toBe(seed);
    expect(promptSeed(8, 'task-1')).not.toBe(seed);
    expect(promptSeed(7, 'task-2')).not.toBe(seed);
  });
});
