// The tools a ShareGPT system turn offers: the JSON list inside its <tools> block (hermes-batch-format.md §4.2).
// Upstream's template also mentions "<tools> </tools>" in its first sentence, and a tool description may
// itself contain "</tools>", so the list is the first <tools> that opens a JSON array, up to the first
// </tools> after which that array parses.
import { isPlainObject } from '@hermes-datagen/core';

const OPEN = '<tools>';
const CLOSE = '</tools>';

/**
 * Names of the offered tools, or null when the value has no readable <tools> list. Entries are
 * upstream's `{"name", ...}` or the OpenAI shape `{"type": "function", "function": {"name", ...}}`.
 */
export function offeredToolNames(systemValue: string): string[] | null {
  for (let open = systemValue.indexOf(OPEN); open !== -1; open = systemValue.indexOf(OPEN, open + 1)) {
    const start = open + OPEN.length;
    if (!/^\s*\[/.test(systemValue.slice(start, start + 64))) continue;
    for (let close = systemValue.indexOf(CLOSE, start); close !== -1; close = systemValue.indexOf(CLOSE, close + 1)) {
      const list = parseJson(systemValue.slice(start, close));
      if (Array.isArray(list)) return list.map(toolName).filter((name): name is string => name !== null);
    }
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function toolName(entry: unknown): string | null {
  if (!isPlainObject(entry)) return null;
  const holder = isPlainObject(entry['function']) ? entry['function'] : entry;
  return typeof holder['name'] === 'string' ? holder['name'] : null;
}
