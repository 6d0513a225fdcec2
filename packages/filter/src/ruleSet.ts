// Which rules a run applies, from its options, in a fixed order: cheap checks on fields first, then
// the ones that parse turns. A record failing several rules is counted once, under the first.
import { loadToolRegistry, UsageError } from '@hermes-datagen/core';
import { hallucinatedTools, type ToolNamePolicy } from './hallucinatedTools.js';
import { dropPartial, maxToolFailureRate, maxTurns, minReasoningRatio, minTurns, requireCompleted, zeroReasoning } from './rules.js';
import { emptyAction, repeatedThought, toolErrorStreak } from './traceRules.js';
import type { Rule } from './trajectoryView.js';

export interface FilterOptions {
  readonly zeroReasoning: boolean;
  readonly minReasoningRatio?: number | undefined;
  readonly hallucinatedTools: boolean;
  readonly toolsRegistry?: string | undefined;
  readonly validTools?: string | undefined;
  readonly strictOffered: boolean;
  readonly requireCompleted: boolean;
  readonly dropPartial: boolean;
  readonly minTurns?: number | undefined;
  readonly maxTurns?: number | undefined;
  readonly maxToolFailureRate?: number | undefined;
  readonly repeatedThought: boolean;
  readonly repeatedThoughtWindow?: number | undefined;
  readonly emptyAction: boolean;
  readonly toolErrorStreak?: number | undefined;
}

export function selectRules(options: FilterOptions, cwd: string): Rule[] {
  const rules: Rule[] = [];
  if (options.requireCompleted) rules.push(requireCompleted);
  if (options.dropPartial) rules.push(dropPartial);
  const min = optionalCount('--min-turns', options.minTurns, 0);
  if (min !== undefined) rules.push((view) => minTurns(view, min));
  const max = optionalCount('--max-turns', options.maxTurns, 0);
  if (max !== undefined) rules.push((view) => maxTurns(view, max));
  if (min !== undefined && max !== undefined && min > max)
    throw new UsageError(`--min-turns ${min} is above --max-turns ${max}: no record could pass; lower one of them`);
  if (options.zeroReasoning) rules.push(zeroReasoning);
  const ratio = optionalRatio('--min-reasoning-ratio', options.minReasoningRatio);
  if (ratio !== undefined) rules.push((view) => minReasoningRatio(view, ratio));
  const policy = toolNamePolicy(options, cwd);
  if (policy) rules.push((view) => hallucinatedTools(view, policy));
  if (options.emptyAction) rules.push(emptyAction);
  const window = optionalCount('--repeated-thought-window', options.repeatedThoughtWindow, 1);
  if (window !== undefined && !options.repeatedThought)
    throw new UsageError('--repeated-thought-window sets the window of --repeated-thought; add --repeated-thought');
  if (options.repeatedThought) rules.push((view) => repeatedThought(view, window ?? 1));
  const rate = optionalRatio('--max-tool-failure-rate', options.maxToolFailureRate);
  if (rate !== undefined) rules.push((view) => maxToolFailureRate(view, rate));
  const streak = optionalCount('--tool-error-streak', options.toolErrorStreak, 1);
  if (streak !== undefined) rules.push((view) => toolErrorStreak(view, streak));
  return rules;
}

function toolNamePolicy(options: FilterOptions, cwd: string): ToolNamePolicy | undefined {
  if (!options.hallucinatedTools) {
    const unused = options.strictOffered
      ? '--strict-offered'
      : options.validTools !== undefined
        ? '--valid-tools'
        : options.toolsRegistry !== undefined
          ? '--tools-registry'
          : undefined;
    if (unused) throw new UsageError(`${unused} configures the hallucinated-tool filter, which --no-hallucinated-tools turns off; drop one of them`);
    return undefined;
  }
  if (options.validTools !== undefined) {
    const names = options.validTools
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    if (names.length === 0) throw new UsageError('--valid-tools lists no tool name; give names separated by commas, e.g. --valid-tools terminal,read_file');
    return { valid: new Set(names), source: '--valid-tools', strictOffered: options.strictOffered };
  }
  const registry = loadToolRegistry(options.toolsRegistry, cwd);
  const source = options.toolsRegistry === undefined ? 'the tool registry' : `the tool registry ${options.toolsRegistry}`;
  return { valid: new Set(registry.names), source, strictOffered: options.strictOffered };
}

function optionalCount(flag: string, value: number | undefined, least: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < least) throw new UsageError(`${flag} must be a whole number of at least ${least}, not ${value}`);
  return value;
}

function optionalRatio(flag: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!(value >= 0 && value <= 1)) throw new UsageError(`${flag} must be a share between 0 and 1 (e.g. 0.5), not ${value}`);
  return value;
}
