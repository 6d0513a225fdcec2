// A workload whose results can be checked exactly: prompt i asks for its own token, and the scripted
// model runs `echo <token>` with the terminal tool, then answers. A record whose terminal result is
// not exactly its token (read short, empty, another prompt's) is wrong however valid it looks.
// Used by hermes-generate's load tests and bench/generate-tools.mjs.
import type { Script } from './script.js';

export interface EchoTokens {
  /** Prompt rows with ids p0, p1, ... */
  prompts: { prompt: string; id: string }[];
  script: Script;
}

/** The token of prompt i: distinct per prompt, not guessable from a neighbour's. */
export function echoToken(i: number): string {
  return `token-${i}-${(i * 2654435761) % 1000003}`;
}

export function echoTokens(count: number): EchoTokens {
  const prompts = Array.from({ length: count }, (_, i) => ({ prompt: `Print ${echoToken(i)} with the terminal.`, id: `p${i}` }));
  const sequences = prompts.map(({ prompt }, i) => ({
    match: { exact: prompt },
    replies: [
      { reasoning: 'Run it.', tool_calls: [{ name: 'terminal', arguments: { command: `echo ${echoToken(i)}` } }] },
      { reasoning: 'It printed.', content: 'Printed.' },
    ],
  }));
  return { prompts, script: { sequences } };
}

/** The one tool result the record of prompt `id` (p<i>) must hold. */
export function expectedEchoResult(id: string): { name: string; content: { output: string; exit_code: number; error: null } } {
  return { name: 'terminal', content: { output: echoToken(Number(id.slice(1))), exit_code: 0, error: null } };
}
