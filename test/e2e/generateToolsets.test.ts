// hermes-generate as a real process: a run under which a prompt can be offered no tool (its toolsets
// have none that runs here, such as web) says so when it starts, and the record shows it.
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { runGenerate } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

describe('toolsets with no tools here', () => {
  it('are warned about at run start, before any record, and the record is offered no tool', async () => {
    const endpoint = await scriptedEndpoint({ apiKey: TEST_API_KEY });
    const run = await runGenerate(endpoint.url, [{ id: 'look-up', prompt: 'Find the population of Lisbon.' }], ['--distribution', 'minimal']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'hermes-generate: warning: toolsets web (--distribution minimal) have no tools available here (they need outside services): a prompt that draws only these is offered no tool',
    );
    expect(run.records).toHaveLength(1);
    expect(run.records[0]?.toolsets_used).toEqual(['web']);
    expect(run.records[0]?.conversations[0]?.value).toContain('<tools>\n[]\n</tools>');

    const withTools = await runGenerate(endpoint.url, [{ id: 'count', prompt: 'Count the files here.' }], ['--toolsets', 'terminal']);
    expect(withTools.code, withTools.stderr).toBe(0);
    expect(withTools.stderr).not.toContain('no tools available here');
  });
});
