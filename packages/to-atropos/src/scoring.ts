// Where each trajectory's score comes from. Trajectories carry no reward: at most one of --score
// completed, --score-field PATH, --scores FILE, --reward-rules chooses the policy, and with none the
// default reward rules score (the caller says so on stderr), so a pipeline's last stage writes data.
import { derivedPromptId, isPlainObject, loadOptionFile, optionFileError, UsageError, type Trajectory } from '@hermes-datagen/core';
import { applyRules, loadRewardRules, type RuleName } from './rewardRules.js';

export interface Scored {
  score: number;
  /** The reward rules that fired (--reward-rules only). */
  fired?: RuleName[];
}

/** A score, or why the record has none (the record is then rejected under --on-error). */
export type ScorePolicy = (record: Trajectory) => Scored | { problem: string };

export interface ScoreOptions {
  score?: 'completed';
  scoreField?: string;
  scores?: string;
  rewardRules?: string;
}

/** The score flags given, by name. */
export function scoreSources(options: ScoreOptions): string[] {
  return [
    options.score !== undefined && '--score',
    options.scoreField !== undefined && '--score-field',
    options.scores !== undefined && '--scores',
    options.rewardRules !== undefined && '--reward-rules',
  ].filter((name): name is string => name !== false);
}

/** Without a score flag: the default reward rules. */
export function scorePolicy(options: ScoreOptions, cwd: string): ScorePolicy {
  const given = scoreSources(options);
  if (given.length > 1) throw new UsageError(`choose one score source, not ${given.join(' and ')}`);
  if (options.score === 'completed') return (record) => ({ score: record.completed && !record.partial ? 1 : 0 });
  if (options.scoreField !== undefined) return fieldScore(options.scoreField);
  if (options.scores !== undefined) return fileScore(options.scores, cwd);
  const weights = loadRewardRules(options.rewardRules ?? 'default', cwd);
  return (record) => applyRules(record, weights);
}

/** A dotted path into the record (metadata.reward); the value must be a finite number. */
function fieldScore(path: string): ScorePolicy {
  const keys = path.split('.');
  if (keys.some((key) => key === '')) throw new UsageError(`--score-field ${path}: expected a dotted path such as metadata.reward`);
  return (record) => {
    let value: unknown = record;
    for (const key of keys) value = isPlainObject(value) ? value[key] : undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return { problem: `--score-field ${path}: ${value === undefined ? 'the record has no such field' : `not a number (${JSON.stringify(value)})`}` };
    }
    return { score: value };
  };
}

/**
 * --scores FILE: JSONL lines {"id": str, "score": number}. A record is looked up by its id, or, without
 * one, by the id hermes-generate derives from its prompt_index and prompt (the first human turn).
 */
function fileScore(path: string, cwd: string): ScorePolicy {
  const file = { option: '--scores', path, cwd };
  const scores = new Map<string, number>();
  for (const [index, line] of loadOptionFile(file, 'jsonl').entries()) {
    const id = isPlainObject(line) ? line['id'] : undefined;
    const score = isPlainObject(line) ? line['score'] : undefined;
    if (typeof id !== 'string' || typeof score !== 'number' || !Number.isFinite(score)) {
      throw optionFileError(file, `entry ${index + 1} is not {"id": string, "score": number}`);
    }
    if (scores.has(id)) throw optionFileError(file, `id "${id}" is scored twice`);
    scores.set(id, score);
  }
  return (record) => {
    const id = recordId(record);
    const score = scores.get(id);
    return score === undefined ? { problem: `--scores ${path} has no score for id "${id}"` } : { score };
  };
}

export function recordId(record: Trajectory): string {
  if (typeof record.id === 'string' && record.id !== '') return record.id;
  return derivedPromptId(record.prompt_index, firstHumanTurn(record));
}

export function firstHumanTurn(record: Trajectory): string {
  return record.conversations.find((turn) => turn.from === 'human')?.value ?? '';
}
