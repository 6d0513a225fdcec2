// What the gateway served: metadata.served_model from the replies' model (hermes-testkit --served-model
// as a real process, as after a gateway's fallback), the reasoning a gateway moved elsewhere read back
// from each place it puts it, and one warning when a run that asked for reasoning gets none.
import { describe, expect, it } from 'vitest';
import { gptTurnHasReasoning } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';
import { startTestkit } from '../util/servers.js';

const gptTurns = (records: Awaited<ReturnType<typeof runGenerate>>['records']) => records.flatMap((r) => r.conversations.filter((t) => t.from === 'gpt'));

describe('metadata.served_model', () => {
  it('records the model the gateway says it served, beside the one asked for', async () => {
    const url = await startTestkit(['--served-model', 'fallback-model-2024']);
    const run = await runGenerate(url, [{ prompt: 'one' }, { prompt: 'two' }], ['--toolsets', 'todo']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.records.map((r) => [r.metadata.model, r.metadata.served_model])).toEqual([
      [TEST_MODEL, 'fallback-model-2024'],
      [TEST_MODEL, 'fallback-model-2024'],
    ]);
  });

  it('is the model asked for when the gateway served that one', async () => {
    const url = await startTestkit();
    const run = await runGenerate(url, [{ prompt: 'one' }], ['--toolsets', 'todo']);
    expect(run.records[0]?.metadata.served_model).toBe(TEST_MODEL);
  });
});

describe('reasoning wherever a gateway puts it', () => {
  it.each(['provider_specific_fields', 'thinking_blocks', 'thinking_content_block'] as const)('%s: every gpt turn has its think block', async (field) => {
    const endpoint = await scriptedEndpoint({ script: { policy: { reasoning_field: field } } });
    const run = await runGenerate(endpoint.url, [{ prompt: 'write a file' }], ['--toolsets', 'file', '--reasoning-effort', 'low']);
    expect(run.code, run.stderr).toBe(0);
    const turns = gptTurns(run.records);
    expect(turns.length).toBeGreaterThan(1);
    expect(turns.every((turn) => gptTurnHasReasoning(turn.value))).toBe(true);
    expect(run.stderr).not.toContain('got reasoning back');
  });

  it('a run that asked for reasoning and gets none warns once, naming the fields it looked in', async () => {
    const endpoint = await scriptedEndpoint({ script: { policy: { reasoning_field: 'none' } } });
    const prompts = Array.from({ length: 12 }, (_, i) => ({ prompt: `task ${i}` }));
    const run = await runGenerate(endpoint.url, prompts, ['--toolsets', 'todo', '--reasoning-effort', 'high']);
    expect(run.code, run.stderr).toBe(0);
    expect(gptTurns(run.records).some((turn) => gptTurnHasReasoning(turn.value))).toBe(false);
    expect(run.stderr.split('got reasoning back')).toHaveLength(2);
    expect(run.stderr).toContain('--reasoning-effort high was sent');
    expect(run.stderr).toContain('provider_specific_fields.{reasoning_content, thinking_blocks}');
  });

  it('no warning without --reasoning-effort; a run shorter than the threshold warns at its end', async () => {
    const endpoint = await scriptedEndpoint({ script: { policy: { reasoning_field: 'none' } } });
    const quiet = await runGenerate(endpoint.url, [{ prompt: 'a' }], ['--toolsets', 'todo']);
    expect(quiet.stderr).not.toContain('got reasoning back');
    const short = await runGenerate(endpoint.url, [{ prompt: 'a' }], ['--toolsets', 'todo', '--reasoning-effort', 'low']);
    expect(short.stderr.split('got reasoning back')).toHaveLength(2);
  });
});
