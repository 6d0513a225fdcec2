// A run read from stdin has no dataset hash in run.json, but each record keeps its row's content
// hash: a --resume whose stdin changed a row (ids derived from position and text) is refused, as a
// changed dataset file is, and with --force-resume each changed row is warned about and run as new.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { tempDir } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { expectRunInvariants } from '../util/runDirectory.js';

const ROWS = Array.from({ length: 20 }, (_, i) => ({ prompt: `task ${i}` }));
const CHANGED = ROWS.map((row, i) => (i === 3 || i === 11 ? { prompt: `${row.prompt}, edited` } : row));

describe('hermes-generate --resume over stdin', () => {
  it('refuses a stdin whose rows changed, naming the first; --force-resume warns of each and runs them as new rows', async () => {
    const endpoint = await scriptedEndpoint({ script: { sequences: [{ match: { regex: '.' }, replies: [{ reasoning: 'Done.', content: 'ok' }] }] } });
    const dir = tempDir('hermes-stdin-resume-');
    const args = ['--run-name', 'r', '--resume'];
    const first = await runGenerate(endpoint.url, ROWS, args, { dir });
    expect(first.code, first.stderr).toBe(0);
    expect(expectRunInvariants(join(dir, 'data', 'r')).records).toHaveLength(20);

    // The same rows again: nothing to do, no refusal.
    const same = await runGenerate(endpoint.url, ROWS, args, { dir });
    expect(same.code, same.stderr).toBe(0);
    expect(same.records).toEqual([]);

    const refused = await runGenerate(endpoint.url, CHANGED, args, { dir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /--resume refused: the row at <stdin>:4 \(prompt 3, no id of its own\) differs from the row this run's records at that position were made from/,
    );
    expect(refused.records).toEqual([]);
    const after = expectRunInvariants(join(dir, 'data', 'r'));
    expect(after.records).toHaveLength(20);
    expect(after.manifest.invocations.at(-1)).toMatchObject({ exit_code: 2 });

    const forced = await runGenerate(endpoint.url, CHANGED, [...args, '--force-resume'], { dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr.match(/--force-resume: the row at <stdin>:(4|12) /g)).toHaveLength(2);
    expect(forced.records).toHaveLength(2);
    expect(expectRunInvariants(join(dir, 'data', 'r')).records).toHaveLength(22);
  });
});
