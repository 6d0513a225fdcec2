// generateStream in-process with stand-in prompt runners: whatever goes wrong in one prompt, a bug
// included, the other prompts finish, their records are kept (the -o file is moved into place even
// on exit 70), and each failure is listed in --rejects.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineCommand, validator, type CliSpec, type Trajectory } from '@hermes-datagen/core';
import { generateStream, type PromptRunner } from '@hermes-datagen/generate/internal/generateStream.js';
import { parseJsonl, runInProcess, tempDir } from '../util/cli.js';
import { trajectory } from '../util/trajectories.js';

function specWith(runPrompt: PromptRunner): CliSpec {
  return {
    name: 'hermes-generate',
    summary: 'test',
    commands: [
      defineCommand({
        command: '$0 [files..]',
        describe: 'test',
        stream: true,
        run: (_args, ctx) => generateStream(ctx, { concurrency: 2, graceMs: 30_000, runPrompt }),
      }),
    ],
  };
}

describe('generateStream', () => {
  it('a bug in one prompt ends no other: exit 70, the others written to -o, the failure listed with its stack', async () => {
    const dir = tempDir();
    const runPrompt: PromptRunner = async ({ row, promptIndex }) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (row.prompt === 'buggy') throw new TypeError('Cannot read properties of undefined');
      return trajectory({ id: `r${promptIndex}`, prompt_index: promptIndex });
    };
    const input = `${['one', 'buggy', 'three', 'four'].map((prompt) => JSON.stringify({ prompt })).join('\n')}\n`;
    const run = await runInProcess(specWith(runPrompt), ['-o', 'out.jsonl', '--rejects', 'rejects.jsonl'], { input, cwd: dir });
    expect(run.code).toBe(70);
    expect(run.stderr).toMatch(
      /\(at <stdin>:2\): prompt 1 failed, no trajectory: internal error, a bug in hermes-generate.*\n.*TypeError: Cannot read properties of undefined/,
    );
    const records = parseJsonl(readFileSync(join(dir, 'out.jsonl'), 'utf8')) as Trajectory[];
    expect(records.map((r) => r.id).sort()).toEqual(['r0', 'r2', 'r3']);
    const [failure] = parseJsonl(readFileSync(join(dir, 'rejects.jsonl'), 'utf8'));
    expect(validator('failure')(failure)).toBeNull();
    expect(failure).toMatchObject({ line: 2, prompt_index: 1, error_class: 'internal', retryable: false, raw: '{"prompt":"buggy"}' });
    expect(run.stderr).toContain('hermes-generate: 3 trajectories written (0 incomplete, 0 partial); 1 prompt failed\n');
  });

  it('ends with the count of what it wrote, as a run directory does', async () => {
    const runPrompt: PromptRunner = async ({ promptIndex }) => trajectory({ id: `r${promptIndex}`, prompt_index: promptIndex, completed: promptIndex !== 1 });
    const input = `${['one', 'two'].map((prompt) => JSON.stringify({ prompt })).join('\n')}\n`;
    const run = await runInProcess(specWith(runPrompt), [], { input });
    expect(run.code).toBe(0);
    expect(parseJsonl(run.stdout)).toHaveLength(2);
    expect(run.stderr).toBe('hermes-generate: 2 trajectories written (1 incomplete, 0 partial); 0 prompts failed\n');
  });
});
