// What makes a record unique in a run: the dataset row (its id, or its position and text) and the
// sample number, never the prompt text alone, so duplicate prompts are separate records (upstream
// #86523). The row's content hash travels with each record, so a resume can tell that the row
// behind a finished record has changed.
import { hash } from 'node:crypto';
import type { PromptRow } from '@hermes-datagen/core';

/** Hex digits of sha256 kept: enough to tell an edited row from the original. */
const ROW_HASH_CHARS = 16;

/** Hash of the row as parsed (key order as written), so any edit to any field changes it. */
export function rowHash(row: PromptRow): string {
  return hash('sha256', JSON.stringify(row), 'hex').slice(0, ROW_HASH_CHARS);
}

/**
 * The prompt's id for its first sample, `<prompt id>#s<k>` for the others, so raising --samples on
 * resume adds samples and keeps the ones written.
 */
export function recordId(promptId: string, sample: number): string {
  return sample === 0 ? promptId : `${promptId}#s${sample}`;
}
