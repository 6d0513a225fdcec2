// Checks hermes-filter's output on the corpus without its code: the kept lines are corpus lines, byte
// for byte and in order, and they are exactly the lines that a plain restatement of the rules keeps.
// The restatement is enough for the synthetic corpus, which has none of the edge cases the unit tests
// cover (think tags in prose, nesting, malformed calls).
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const REGISTRY = new Set(Object.keys(JSON.parse(readFileSync(new URL('../packages/core/registry/tools.json', import.meta.url), 'utf8')).tools));

/** A think or scratchpad block whose first non-space character does not close it. */
export const REASONING_PATTERN = '<(think|REASONING_SCRATCHPAD)>\\s*(?!</(think|REASONING_SCRATCHPAD)>)\\S';
const reasoning = new RegExp(REASONING_PATTERN);

function keeps(line, { hallucinatedTools }) {
  const record = JSON.parse(line);
  if (!record.conversations.some((turn) => turn.from === 'gpt' && reasoning.test(turn.value))) return false;
  if (!hallucinatedTools) return true;
  return Object.entries(record.tool_stats).every(([name, stat]) => stat.count === 0 || REGISTRY.has(name));
}

/** A subject's verify(stdout, corpus): null, or what is wrong with the output. */
export function filterOutputCheck(rules) {
  return async (stdout, corpus) => {
    const output = createInterface({ input: stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
    let lineNo = 0;
    let kept = 0;
    for await (const line of createInterface({ input: createReadStream(corpus.path), crlfDelay: Infinity })) {
      lineNo += 1;
      if (!keeps(line, rules)) continue;
      const next = await output.next();
      if (next.done) return `output ends after ${kept} records; corpus line ${lineNo} should have been kept`;
      if (next.value !== line) return `output record ${kept + 1} is not corpus line ${lineNo} byte for byte (dropped a line it should keep, or changed it)`;
      kept += 1;
    }
    const extra = await output.next();
    return extra.done ? null : `output has more than the ${kept} records the rules keep`;
  };
}
