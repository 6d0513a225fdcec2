// hermes-generate under load, as a real process against the scripted endpoint: hundreds of prompts in
// flight at once must all come out as whole records, on a bounded pool of connections, without
// Node's MaxListenersExceededWarning (a listener per prompt on one shared signal used to trip it).
// The full-size run (-c 512, 1 s latency, 2,048 prompts) is in `make bench` (bench/generate.mjs).
import { describe, expect, it } from 'vitest';
import { validator } from '@hermes-datagen/core';
import type { Script } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { runGenerate } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

const TWO_TURNS: Script = {
  sequences: [
    {
      match: { regex: '.' },
      replies: [
        { reasoning: 'Plan first.', tool_calls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'do it', status: 'in_progress' }] } }] },
        { reasoning: 'Done.', content: 'All done.' },
      ],
    },
  ],
};

describe('hermes-generate under load', () => {
  it('runs 400 prompts at -c 200 against 200 ms latency: every record whole, no warning', async () => {
    const endpoint = await scriptedEndpoint({ script: TWO_TURNS, apiKey: TEST_API_KEY, latencyMs: 200, recordRequests: false });
    const prompts = Array.from({ length: 400 }, (_, i) => ({ prompt: `Task ${i}: plan it.`, id: `t${i}` }));
    const run = await runGenerate(endpoint.url, prompts, ['--toolsets', 'todo', '-c', '200']);
    expect(run.stderr).not.toMatch(/MaxListeners|Warning/);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(400);
    expect(new Set(run.records.map((r) => r.id)).size).toBe(400);
    for (const record of run.records) {
      expect(validator('trajectory')(record)).toBeNull();
      expect(record).toMatchObject({ completed: true, api_calls: 2 });
    }
  });

  it('runs prompts with real tool processes at -c 64 without a MaxListeners warning', async () => {
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      recordRequests: false,
      script: {
        sequences: [
          {
            match: { regex: '.' },
            replies: [
              { reasoning: 'Run it.', tool_calls: [{ name: 'terminal', arguments: { command: 'echo ran' } }] },
              { reasoning: 'It ran.', content: 'It printed ran.' },
            ],
          },
        ],
      },
    });
    const prompts = Array.from({ length: 64 }, (_, i) => ({ prompt: `Task ${i}` }));
    const run = await runGenerate(endpoint.url, prompts, ['--toolsets', 'terminal', '-c', '64']);
    expect(run.stderr).not.toMatch(/MaxListeners|Warning/);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(64);
  });
});
