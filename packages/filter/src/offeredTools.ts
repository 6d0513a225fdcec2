// The tools a ShareGPT system turn offers: the JSON list inside its <tools> block (hermes-batch-format.md §4.2).
// Upstream's template also mentions "<tools> </tools>" in its first sentence, so the list is the first
// block whose content is a JSON array, not simply the first block.
import { isPlainObject, splitTagBlocks } from '@hermes-datagen/core';

/**
 * Names of the offered tools, or null when the value has no readable <tools> list. Entries are
 * upstream's `{"name", ...}` or the OpenAI shape `{"type": "function", "function": {"name", ...}}`.
 */
export function offeredToolNames(systemValue: string): string[] | null {
  for (const segment of splitTagBlocks(systemValue, ['tools'])) {
    if (segment.kind !== 'block' || !segment.inner.trimStart().startsWith('[')) continue;
    let list: unknown;
    try {
      list = JSON.parse(segment.inner);
    } catch {
      continue;
    }
    if (!Array.isArray(list)) continue;
    return list.map(toolName).filter((name): name is string => name !== null);
  }
  return null;
}

function toolName(entry: unknown): string | null {
  if (!isPlainObject(entry)) return null;
  const holder = isPlainObject(entry['function']) ? entry['function'] : entry;
  return typeof holder['name'] === 'string' ? holder['name'] : null;
}
