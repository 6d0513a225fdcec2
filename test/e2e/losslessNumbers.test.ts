// hermes-generate as a real process: the numbers of a model's tool-call arguments reach the record as
// the model wrote them (as upstream's json.loads + json.dumps keep them), not as JS numbers.
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { runGenerate } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

describe('hermes-generate keeps the numbers of tool-call arguments', () => {
  it('1.0 stays 1.0, a 64-bit id keeps its digits, -0.0 stays -0.0', async () => {
    const PROMPT = 'Run echo with a 64-bit id.';
    const args = '{"command": "echo 12345678901234567890", "timeout": 30.0, "note_id": 12345678901234567890, "z": -0.0}';
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: {
        sequences: [
          {
            match: { exact: PROMPT },
            replies: [
              { reasoning: 'Run it.', tool_calls: [{ id: 'call_1', name: 'terminal', arguments: args }] },
              { reasoning: 'Done.', content: 'It printed the id.' },
            ],
          },
        ],
      },
    });
    const run = await runGenerate(endpoint.url, [{ prompt: PROMPT, id: 'n1' }], ['--toolsets', 'terminal']);
    expect(run.code, run.stderr).toBe(0);
    const gpt = run.records[0]?.conversations[2]?.value ?? '';
    expect(gpt).toContain(
      '{"name": "terminal", "arguments": {"command": "echo 12345678901234567890", "timeout": 30.0, "note_id": 12345678901234567890, "z": -0.0}}',
    );
  });
});
