// hermes-generate with real tool processes under load, as a real process against the scripted
// endpoint: every prompt runs a command that prints its own token, and every record's terminal
// result must hold exactly that (a result read short, or another prompt's, is wrong training data
// that looks right). The full-size run (1,000 prompts at -c 256) is `make bench` (bench/generate-tools.mjs).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseToolValue, type Trajectory } from '@hermes-datagen/core';
import { echoTokens, expectedEchoResult } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, runProcess } from '../util/cli.js';
import { runGenerate, type GenerateOptions } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

/** The record holds exactly one tool result: its own prompt's token, printed by terminal. */
function expectOwnToken(record: Trajectory): void {
  const results = record.conversations
    .filter((turn) => turn.from === 'tool')
    .flatMap((turn) => parseToolValue(turn.value))
    .map(({ name, content }) => ({ name, content }));
  expect(results, `record ${record.id}`).toEqual([expectedEchoResult(record.id ?? '')]);
}

/**
 * `count` prompts with --toolsets terminal,file against `latencyMs` replies: exit 0, no warning or
 * failure, every record there with its own token, no workspace left.
 */
async function expectEveryEcho(count: number, latencyMs: number, args: readonly string[], options: GenerateOptions = {}): Promise<void> {
  const { prompts, script } = echoTokens(count);
  const endpoint = await scriptedEndpoint({ script, apiKey: TEST_API_KEY, latencyMs, recordRequests: false });
  const run = await runGenerate(endpoint.url, prompts, ['--toolsets', 'terminal,file', ...args], options);
  // The closing summary says "0 prompts failed": any other failure is one.
  expect(run.stderr).not.toMatch(/Warning|EMFILE|Error:|(?<!0 prompts )failed/);
  expect(run.stderr).toMatch(/ 0 prompts failed/);
  expect(run.code).toBe(0);
  expect(run.records).toHaveLength(count);
  for (const record of run.records) expectOwnToken(record);
  expect(readdirSync(join(run.dir, 'workspaces'))).toEqual([]);
}

describe('hermes-generate with real tools under load', () => {
  it('100 prompts at -c 64 against 200 ms latency: every terminal result holds exactly what its command printed', async () => {
    await expectEveryEcho(100, 200, ['-c', '64']);
  });

  it('under ulimit -n 256 at -c 128 ends with exit 0, every result right, no workspace left', async () => {
    await expectEveryEcho(128, 50, ['-c', '128'], { maxOpenFiles: 256 });
  });

  it('checks --tool-concurrency and --sandbox before calling the endpoint (exit 2), and --help explains both', async () => {
    const endpoint = await scriptedEndpoint({ script: echoTokens(1).script, apiKey: TEST_API_KEY });
    for (const [value, message] of [
      ['0', /--tool-concurrency must be a whole number from 1 up/],
      ['1.5', /--tool-concurrency must be a whole number from 1 up/],
      ['many', /--tool-concurrency must be a number, got 'many'/],
    ] as const) {
      const run = await runGenerate(endpoint.url, echoTokens(1).prompts, ['--toolsets', 'terminal', '--tool-concurrency', value]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    const noBwrap = await runGenerate(endpoint.url, echoTokens(1).prompts, ['--toolsets', 'terminal', '--sandbox', 'bwrap'], { env: { PATH: '/nonexistent' } });
    expect(noBwrap.code).toBe(2);
    expect(noBwrap.stderr).toMatch(/--sandbox bwrap cannot run a command on this machine; install bubblewrap/);
    expect(endpoint.requests).toHaveLength(0);
    const help = await runProcess(binPath('generate', 'hermes-generate'), ['--help']);
    expect(help.stdout).toMatch(/--sandbox\s+where terminal commands and code run; auto \(default\): bwrap when it works here, else unshare, else none/);
    expect(help.stdout).toMatch(/--tool-concurrency\s+tool processes \(commands, code runs\) running at once across all prompts/);
  });
});
