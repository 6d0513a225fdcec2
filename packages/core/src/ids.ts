// Stable ids of prompts and the trajectories made from them. A dataset row may carry its own `id`;
// otherwise the id is derived from the row's position among the valid rows and its text, so the same
// dataset gives the same ids in every run (resume and the other CLIs match records by them), and an
// edited prompt at the same position gets a new one.
import { hash } from 'node:crypto';
import type { PromptRow, Trajectory } from './model.js';

/** Hex digits of the prompt text's SHA-256 kept in a derived id: collisions need the same index too. */
const TEXT_HASH_CHARS = 12;

/** `p<index>-<first 12 hex of sha256(prompt)>`, e.g. `p42-9f86d081884c`. */
export function derivedPromptId(promptIndex: number, prompt: string): string {
  // The one-shot hash: a resume derives the id of every row again, and a Hash object per row costs about three times as much.
  return `p${promptIndex}-${hash('sha256', prompt, 'hex').slice(0, TEXT_HASH_CHARS)}`;
}

/** The row's own `id` when it has one, else the derived id. */
export function promptId(row: Pick<PromptRow, 'prompt' | 'id'>, promptIndex: number): string {
  return typeof row.id === 'string' && row.id !== '' ? row.id : derivedPromptId(promptIndex, row.prompt);
}

/** A trajectory's own `id`, else the id derived from its prompt_index and first human turn (its prompt). */
export function trajectoryId(record: Trajectory): string {
  if (typeof record.id === 'string' && record.id !== '') return record.id;
  return derivedPromptId(record.prompt_index, firstHumanTurn(record));
}

/** The text of the record's first human turn: the prompt it was made from. */
export function firstHumanTurn(record: Trajectory): string {
  return record.conversations.find((turn) => turn.from === 'human')?.value ?? '';
}
