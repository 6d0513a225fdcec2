// A placeholder key (EMPTY, x, …, as local servers take) cannot be a secret, so it is never
// substituted: records carry exactly what the prompt, the model and the tools produced, and doctor's
// report reads as written. (A real key is still never shown: every runGenerate checks it.)
import { describe, expect, it } from 'vitest';
import { parseToolValue } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { binPath, runProcess } from '../util/cli.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';

const PROMPT = 'Write a script that prints EMPTY when the list is empty, then the count of the odd numbers.';

describe('a placeholder key', () => {
  it('EMPTY: the prompt, the tool result and the answer keep every EMPTY', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: 'EMPTY',
      script: {
        sequences: [
          {
            match: { contains: 'EMPTY' },
            replies: [
              { reasoning: 'Check what EMPTY prints.', tool_calls: [{ name: 'terminal', arguments: { command: 'echo EMPTY' } }] },
              { reasoning: 'It printed EMPTY.', content: 'The script prints EMPTY for an empty list.' },
            ],
          },
        ],
      },
    });
    const run = await runGenerate(endpoint.url, [{ prompt: PROMPT }], ['--toolsets', 'terminal'], { env: { HERMES_API_KEY: 'EMPTY' } });
    expect(run.code).toBe(0);
    const [record] = run.records;
    expect(run.stdout).not.toContain('[api key');
    expect(record?.conversations[1]?.value).toBe(PROMPT);
    const [result] = parseToolValue(record?.conversations[3]?.value ?? '') as { content: { output: string } }[];
    expect(result?.content.output).toMatch(/^EMPTY\n?$/);
    expect(record?.conversations[4]?.value).toContain('The script prints EMPTY for an empty list.');
    expect(record?.metadata.model).toBe(TEST_MODEL);
  });

  it('x: the tools still get TERM=xterm (a placeholder drops no variable from their environment)', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: 'x',
      script: {
        sequences: [
          {
            match: { regex: '.' },
            replies: [
              { reasoning: 'Which terminal?', tool_calls: [{ name: 'terminal', arguments: { command: 'echo "term=$TERM"' } }] },
              { reasoning: 'Seen.', content: 'done' },
            ],
          },
        ],
      },
    });
    const run = await runGenerate(endpoint.url, [{ prompt: 'Print the terminal type.' }], ['--toolsets', 'terminal'], {
      env: { HERMES_API_KEY: 'x', TERM: 'xterm' },
    });
    expect(run.code, run.stderr).toBe(0);
    const [result] = parseToolValue(run.records[0]?.conversations[3]?.value ?? '') as { content: { output: string } }[];
    expect(result?.content.output).toMatch(/^term=xterm\n?$/);
  });

  it.each([['EMPTY'], ['x'], ['sk-no-key-required']])("%s: doctor's report reads as written", async (key) => {
    const endpoint = await scriptedEndpoint({ apiKey: 'the-gateway-wants-another-key-123' });
    const doctor = await runProcess(binPath('generate', 'hermes-generate'), ['doctor', '--base-url', endpoint.url, '--model', `EMPTY-${TEST_MODEL}`], {
      env: { HERMES_API_KEY: key },
    });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).not.toContain('[api key');
    expect(doctor.stdout).toContain('      fix: check the key is current');
    expect(doctor.stdout).toContain(`model     EMPTY-${TEST_MODEL}`);
  });
});
