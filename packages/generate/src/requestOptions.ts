// The flags that decide what a model request carries besides the conversation: the tools offered
// (--tools-registry, --toolsets, --distribution) and reasoning_effort. Declared once, for a run and
// for doctor, whose probe is the run's first request (doctor/checkEndpoint.ts).
import { toolsRegistryOption } from '@hermes-datagen/core';
import type { Argv } from 'yargs';
import { REASONING_EFFORTS } from './agentLoop.js';

export const GENERATION = 'Generation:';
export const TOOLS = 'Tools:';

export function requestOptions<T>(y: Argv<T>) {
  return toolsRegistryOption(y, TOOLS)
    .option('reasoning-effort', {
      alias: 'reasoning_effort',
      choices: REASONING_EFFORTS,
      describe: 'sent to the endpoint as reasoning_effort (not sent when not given)',
      group: GENERATION,
    })
    .option('toolsets', { type: 'string', describe: 'give every prompt exactly these toolsets, comma-separated (e.g. terminal,file)', group: TOOLS })
    .option('distribution', {
      type: 'string',
      default: 'default',
      describe: "sample each prompt's toolsets from this distribution of the tool registry",
      group: TOOLS,
    });
}
