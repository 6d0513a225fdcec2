// Running prompts with stand-in prompt runners: a record goes to its commit, a failure to
// failures.jsonl with its class, a stopped prompt is counted and unwritten, --prompt-timeout fails it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PromptRunner } from '@hermes-datagen/generate/internal/generateStream.js';
import { promptRuns } from '@hermes-datagen/generate/internal/run/promptRuns.js';
import { ApiKey } from '@hermes-datagen/core';
import { parseJsonl, tempDir } from '../../util/cli.js';
import { trajectory } from '../../util/trajectories.js';
import { inRunContext, job, openTestRun, writeStages } from '../../util/runStages.js';

const secret = new ApiKey('sk-test-secret-value');

describe('prompt runs', () => {
  it('runs a job with its record id, trace tags and run fields, and commits its record', async () => {
    const run = await openTestRun(tempDir());
    const seen: unknown[] = [];
    const runPrompt: PromptRunner = async (prompt) => {
      seen.push({ recordId: prompt.recordId, tags: prompt.requestTags, fields: prompt.runFields, batch: prompt.batchNum });
      return trajectory({ id: prompt.recordId });
    };
    await inRunContext(async (ctx) => {
      const stages = await writeStages(ctx, run, secret);
      await promptRuns({ runName: 'run1', runPrompt, secret }, { ...stages, failures: stages.state.failures, ctx })(job('a'));
      await stages.commits.settled();
      expect(stages.tally.written).toBe(1);
      return 0;
    });
    expect(seen).toEqual([
      {
        recordId: 'a',
        tags: expect.objectContaining({ user: expect.stringMatching(/^hermes:run1:a:/) }),
        fields: { run_name: 'run1', sample: 0, row_hash: '0123456789abcdef' },
        batch: 0,
      },
    ]);
  });

  it('appends a failed prompt to failures.jsonl with its class and place, without the key, and counts it', async () => {
    const run = await openTestRun(tempDir());
    const runPrompt: PromptRunner = async () => {
      throw new TypeError('bug near sk-test-secret-value');
    };
    const result = await inRunContext(async (ctx) => {
      const stages = await writeStages(ctx, run, secret);
      await promptRuns({ runName: 'run1', runPrompt, secret }, { ...stages, failures: stages.state.failures, ctx })(job('a'));
      expect(stages.tally.failed).toBe(1);
      expect(stages.tally.failureCode()).toBe(70);
      return 0;
    });
    expect(result.stderr).toMatch(/prompt a failed, no record \(it runs again on --resume\)/);
    const text = readFileSync(join(run.dir, 'failures.jsonl'), 'utf8');
    expect(text).not.toContain('sk-test-secret-value');
    expect(parseJsonl(text)).toEqual([expect.objectContaining({ id: 'a', error_class: 'internal', line: 1 })]);
  });

  it('fails a prompt over --prompt-timeout as prompt-timeout (retryable)', async () => {
    const run = await openTestRun(tempDir());
    const runPrompt: PromptRunner = ({ signal }) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    await inRunContext(async (ctx) => {
      const stages = await writeStages(ctx, run, secret);
      await promptRuns({ runName: 'run1', runPrompt, secret, promptTimeoutMs: 1 }, { ...stages, failures: stages.state.failures, ctx })(job('a'));
      expect(stages.tally.failureCode()).toBe(4);
      return 0;
    });
    expect(parseJsonl(readFileSync(join(run.dir, 'failures.jsonl'), 'utf8'))).toEqual([
      expect.objectContaining({ id: 'a', error_class: 'prompt-timeout', retryable: true }),
    ]);
  });

  it('counts a prompt stopped by the run as interrupted: no record, no failure', async () => {
    const run = await openTestRun(tempDir());
    await inRunContext(async (ctx) => {
      const stages = await writeStages(ctx, run, secret);
      const runPrompt: PromptRunner = async () => {
        stages.stops.prompts.abort('SIGTERM');
        throw new Error('aborted');
      };
      await promptRuns({ runName: 'run1', runPrompt, secret }, { ...stages, failures: stages.state.failures, ctx })(job('a'));
      expect(stages.tally).toMatchObject({ interrupted: 1, written: 0, failed: 0 });
      return 0;
    });
  });
});
