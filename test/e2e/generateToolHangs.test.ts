// Tools that used to hang or stall a run, through the real hermes-generate process and the scripted
// endpoint, with the tools really executing: a named pipe made by a terminal call and then read,
// written and patched (each refused at once, the run exits 0), and search_files with `^(a+)+$` over a
// line of 28 a's and a b (a backtracking engine takes minutes; RE2 answers at once, so the prompts
// running beside it are not stalled and the run ends).
import { describe, expect, it } from 'vitest';
import { parseToolValue } from '@hermes-datagen/core';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { runGenerate } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

describe('tools that would block or backtrack never hold the run', () => {
  it('read_file, write_file and patch on a FIFO a terminal call made are refused; search_files with ^(a+)+$ answers; exit 0', async () => {
    const prompt = 'Play with a pipe and a pattern.';
    const endpoint = await scriptedEndpoint({
      apiKey: TEST_API_KEY,
      script: {
        sequences: [
          {
            match: { exact: prompt },
            replies: [
              { reasoning: 'Make them.', tool_calls: [{ name: 'terminal', arguments: { command: `mkfifo pipe && printf '${'a'.repeat(28)}b\\n' > a.txt` } }] },
              {
                reasoning: 'Touch the pipe.',
                tool_calls: [
                  { name: 'read_file', arguments: { path: 'pipe' } },
                  { name: 'write_file', arguments: { path: 'pipe', content: 'x' } },
                  { name: 'patch', arguments: { path: 'pipe', old_string: 'a', new_string: 'b' } },
                  { name: 'search_files', arguments: { pattern: '^(a+)+$' } },
                  { name: 'search_files', arguments: { pattern: '^(a+)+b$' } },
                ],
              },
              { reasoning: 'Done.', content: 'Done.' },
            ],
          },
        ],
      },
    });
    const run = await runGenerate(endpoint.url, [{ id: 'p0', prompt }], ['--toolsets', 'terminal,file']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.records).toHaveLength(1);
    const results = run.records[0]!.conversations.filter((turn) => turn.from === 'tool').flatMap((turn) => parseToolValue(turn.value));
    const byName = (name: string) => results.filter((result) => result.name === name).map((result) => result.content);
    const refusal = /^pipe is a named pipe \(FIFO\), not a regular file/;
    expect(byName('read_file')).toEqual([{ error: expect.stringMatching(refusal) }]);
    expect(byName('write_file')).toEqual([{ error: expect.stringMatching(refusal) }]);
    expect(byName('patch')).toEqual([{ error: expect.stringMatching(refusal) }]);
    expect(byName('search_files')).toEqual([
      { matches: [], truncated: false },
      { matches: [{ path: 'a.txt', line: 1, text: `${'a'.repeat(28)}b` }], truncated: false },
    ]);
  });
});
