// hermes-compress as a real process (the built bin) in a pipe, and the llm strategy against the
// scripted endpoint over real HTTP: fallback after failures, truncated summaries rejected, retries.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validator, type Trajectory } from '@hermes-datagen/core';
import { startScriptedEndpoint, type ScriptedEndpoint } from '@hermes-datagen/testkit';
import { spec } from '@hermes-datagen/compress';
import { binPath, jsonl, parseJsonl, runInProcess, runProcess, tempDir, writeFiles } from '../util/cli.js';
import { human, system, tool, trajectory } from '../util/trajectories.js';
import { longRun } from './helpers.js';

const BIN = binPath('compress', 'hermes-compress');
const KEY = 'sk-compress-test-key';

describe('hermes-compress (built bin)', () => {
  it('compresses in a pipe, keeps input order and other fields, and writes the metrics file', async () => {
    const dir = tempDir();
    const records = [longRun(12), trajectory(), longRun(3), longRun(14)].map((r, i) => ({ ...r, prompt_index: i, id: `r${i}` }));
    const result = await runProcess(BIN, ['--target-max-tokens', '2000', '--metrics-file', join(dir, 'm.json')], { input: jsonl(records) });
    expect(result.code, result.stderr).toBe(0);
    const out = parseJsonl(result.stdout) as Trajectory[];
    expect(out.map((r) => r.id)).toEqual(['r0', 'r1', 'r2', 'r3']);
    for (const r of out) expect(validator('trajectory')(r)).toBeNull();
    expect(out[0]?.metadata.compression).toMatchObject({ status: 'compressed', strategy: 'key_decision_extract', target: 2000 });
    expect(Object.keys(out[0]?.compression_metrics ?? {})).toEqual([
      'original_tokens',
      'compressed_tokens',
      'tokens_saved',
      'compression_ratio',
      'original_turns',
      'compressed_turns',
      'turns_removed',
      'compression_region',
      'was_compressed',
      'still_over_limit',
      'skipped_under_target',
      'summarization_api_calls',
      'summarization_errors',
    ]);
    expect(out[1]?.metadata.compression).toMatchObject({ status: 'skipped', reason: 'under_target', tokens_before: null });
    expect(out[1]?.conversations).toEqual(records[1]?.conversations);
    expect(out[1]).not.toHaveProperty('compression_metrics');
    expect({ ...out[0], conversations: [], metadata: {}, compression_metrics: {} }).toEqual({
      ...records[0],
      conversations: [],
      metadata: {},
      compression_metrics: {},
    });
    const metrics = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(metrics)).toEqual(['summary', 'tokens', 'turns', 'averages', 'summarization', 'processing', 'by_status', 'by_reason', 'by_strategy']);
    expect(metrics['summary']).toMatchObject({ total_trajectories: 4, trajectories_compressed: 2 });
    expect(result.stderr).toMatch(/4 records: compressed 2, skipped 2, unchanged 0, error 0/);

    // Idempotent: the output through again passes byte for byte.
    const again = await runProcess(BIN, ['--target-max-tokens', '2000'], { input: result.stdout });
    expect(again.stdout).toBe(result.stdout);
  });

  it('--config takes upstream YAML keys plus ours: unknown keys warn, a wrong type exits 2', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'ok.yaml':
        'compression:\n  target_max_tokens: 2000\n  summary_target_tokens: 300\nprotected_turns:\n  last_n_turns: 2\noutput:\n  add_summary_notice: false\nbudget:\n  min_tokens_after: 10\nmystery:\n  key: 1\n',
      'bad.yaml': 'compression:\n  target_max_tokens: "lots"\n',
    });
    const ok = await runProcess(BIN, ['--config', 'ok.yaml'], { input: jsonl([longRun(12)]), cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/unknown key mystery/);
    const [record] = parseJsonl(ok.stdout) as Trajectory[];
    expect(record?.metadata.compression?.target).toBe(2000);
    expect(record?.conversations[0]?.value).toBe(system().value); // no notice
    const bad = await runProcess(BIN, ['--config', 'bad.yaml'], { input: jsonl([longRun(12)]), cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--config bad.yaml at compression.target_max_tokens: expected a whole number/);
  });

  it('--on-error skip drops a record under min_tokens_after into --rejects; by default the original is emitted', async () => {
    const dir = tempDir();
    // One huge result in the window: cutting it to 50 tokens leaves far less than --min-tokens-after.
    const huge = longRun(4);
    huge.conversations[5] = tool({ name: 'terminal', content: 'log '.repeat(20_000), id: 'c1' });
    const input = jsonl([huge]);
    const args = ['--target-max-tokens', '21000', '--min-tokens-after', '20900', '--reducers', 'redundant_tool_outputs', '--tool-output-max-tokens', '50'];
    const kept = await runProcess(BIN, args, { input });
    expect(kept.code).toBe(0);
    const [record] = parseJsonl(kept.stdout) as Trajectory[];
    expect(record?.metadata.compression).toMatchObject({ status: 'error', message: 'compressed trace too short, min_tokens_after not satisfied' });
    expect(record?.conversations).toEqual(huge.conversations);
    const dropped = await runProcess(BIN, [...args, '--on-error', 'skip', '--rejects', join(dir, 'rej.jsonl')], { input });
    expect(dropped.stdout).toBe('');
    expect(parseJsonl(readFileSync(join(dir, 'rej.jsonl'), 'utf8'))).toEqual([
      expect.objectContaining({ line: 1, reason: 'compressed trace too short, min_tokens_after not satisfied' }),
    ]);
  });
});

describe('--strategy llm against the scripted endpoint', () => {
  let endpoint: ScriptedEndpoint;
  beforeAll(async () => {
    endpoint = await startScriptedEndpoint({
      apiKey: KEY,
      script: {
        sequences: [
          { match: { contains: 'CASE-LENGTH' }, replies: [{ content: '[CONTEXT SUMMARY]: cut', finish_reason: 'length' }] },
          { match: { contains: 'CASE-OK' }, replies: [{ content: 'The agent ran make <tool_call> steps and the build passed.' }] },
        ],
        faults: [{ kind: 'server_error', when: { prompt: { contains: 'CASE-FAIL' } } }],
      },
    });
  });
  afterAll(async () => endpoint.close());

  const run = (marker: string, extra: string[] = []) =>
    runProcess(
      BIN,
      [
        '--strategy',
        'llm',
        '--target-max-tokens',
        '2000',
        '--max-retries',
        '2',
        '--retry-delay',
        '0',
        '--base-url',
        endpoint.url,
        '--model',
        'summarizer',
        '--metrics-file',
        'm.json',
        ...extra,
      ],
      {
        input: jsonl([longRun(12, marker)]),
        env: { HERMES_API_KEY: KEY },
        cwd: tempDir(),
      },
    );

  it('uses the summary (prefix added, tags escaped) and counts the call', async () => {
    const result = await run('CASE-OK');
    expect(result.code, result.stderr).toBe(0);
    const [record] = parseJsonl(result.stdout) as Trajectory[];
    const summary = record?.conversations.find((turn) => turn.value.startsWith('[CONTEXT SUMMARY]:'));
    expect(summary?.value).toBe('[CONTEXT SUMMARY]: The agent ran make &lt;tool_call> steps and the build passed.');
    expect(record?.compression_metrics).toMatchObject({ summarization_api_calls: 1, summarization_errors: 0, was_compressed: true });
    expect(record?.metadata.compression).toMatchObject({ strategy: 'llm', status: 'compressed' });
    const request = endpoint.requests.at(-1)?.body as { max_tokens: number; temperature: number; messages: { content: string }[] };
    expect(request.max_tokens).toBe(1500);
    expect(request.temperature).toBe(0.3);
    expect(request.messages[0]?.content).toMatch(/TURNS TO SUMMARIZE:\n\[Turn 4 - GPT\]:/);
    expect(result.stdout).not.toContain(KEY);
    expect(result.stderr).not.toContain(KEY);
  });

  it('with --prices, the closing line says what the summary calls cost; without, nothing is made up', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'prices.yaml'), 'summarizer: { input: 2, output: 8 }\n');
    const priced = await runProcess(
      BIN,
      ['--strategy', 'llm', '--target-max-tokens', '2000', '--base-url', endpoint.url, '--model', 'summarizer', '--prices', 'prices.yaml'],
      { input: jsonl([longRun(12, 'CASE-OK')]), env: { HERMES_API_KEY: KEY }, cwd: dir },
    );
    expect(priced.code, priced.stderr).toBe(0);
    const [, usd] = /summary calls cost \$([0-9.e-]+) for 1 call\b/.exec(priced.stderr) ?? [];
    expect(Number(usd)).toBeGreaterThan(0);
    writeFileSync(join(dir, 'other.yaml'), 'another-model: { input: 2, output: 8 }\n');
    const unpriced = await runProcess(
      BIN,
      ['--strategy', 'llm', '--target-max-tokens', '2000', '--base-url', endpoint.url, '--model', 'summarizer', '--prices', 'other.yaml'],
      { input: jsonl([longRun(12, 'CASE-OK')]), env: { HERMES_API_KEY: KEY }, cwd: dir },
    );
    expect(unpriced.stderr).toContain('summary calls cost $0 for 1 call (not priced: summarizer; the sum is a lower bound)');
  });

  it('rejects truncated summaries and falls back to key_decision_extract after the last attempt', async () => {
    for (const marker of ['CASE-LENGTH', 'CASE-FAIL']) {
      const result = await run(marker);
      expect(result.code, result.stderr).toBe(0);
      const [record] = parseJsonl(result.stdout) as Trajectory[];
      expect(record?.metadata.compression).toMatchObject({ status: 'compressed', strategy: 'key_decision_extract', reason: 'llm_failed_fallback' });
      expect(record?.compression_metrics).toMatchObject({ summarization_api_calls: 2, summarization_errors: 2 });
      expect(record?.conversations.some((turn) => turn.value.includes('call terminal(command="make s1")'))).toBe(true);
    }
  });

  it("waits out 429s behind the process's rate limiter: the summary is used, and no attempt counts as failed", async () => {
    const limited = await startScriptedEndpoint({
      apiKey: KEY,
      script: {
        sequences: [{ match: { contains: 'CASE-429' }, replies: [{ content: 'The agent ran make and the build passed.' }] }],
        faults: [{ kind: 'rate_limit', when: { nth: [1, 2, 3] }, retry_after_ms: 20 }],
      },
    });
    try {
      const result = await runProcess(
        BIN,
        ['--strategy', 'llm', '--target-max-tokens', '2000', '--max-retries', '1', '--base-url', limited.url, '--model', 'm'],
        {
          input: jsonl([longRun(12, 'CASE-429')]),
          env: { HERMES_API_KEY: KEY },
        },
      );
      expect(result.code, result.stderr).toBe(0);
      const [record] = parseJsonl(result.stdout) as Trajectory[];
      expect(record?.metadata.compression).toMatchObject({ strategy: 'llm', status: 'compressed' });
      expect(record?.compression_metrics).toMatchObject({ summarization_api_calls: 1, summarization_errors: 0 });
      expect(limited.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(4);
    } finally {
      await limited.close();
    }
  });

  it('emits a record that runs past --timeout uncompressed, with status error', async () => {
    const slow = await startScriptedEndpoint({ apiKey: KEY, script: { faults: [{ kind: 'timeout' }] } });
    try {
      const result = await runProcess(BIN, ['--strategy', 'llm', '--target-max-tokens', '2000', '--timeout', '0.5', '--base-url', slow.url, '--model', 'm'], {
        input: jsonl([longRun(12), longRun(13)]),
        env: { HERMES_API_KEY: KEY },
      });
      expect(result.code, result.stderr).toBe(0);
      const out = parseJsonl(result.stdout) as Trajectory[];
      expect(out).toHaveLength(2);
      for (const r of out) expect(r.metadata.compression).toMatchObject({ status: 'error', reason: 'timeout' });
      expect(out[0]?.conversations).toEqual(longRun(12).conversations);
    } finally {
      await slow.close();
    }
  });
});

describe('hermes-compress in process', () => {
  it('a passed-through record keeps its line but for metadata, whether or not the line is compact', async () => {
    const record = trajectory({ conversations: [system(), human('Keep "quotes" and \\ and é')] });
    const compact = JSON.stringify(record);
    const spaced = compact.replace('"metadata":', '"metadata" : ');
    const result = await runInProcess(spec, [], { input: `${compact}\n${spaced}\n` });
    expect(result.code, result.stderr).toBe(0);
    const [first, second] = result.stdout.trim().split('\n');
    const expected = { ...record, metadata: { ...record.metadata, compression: expect.objectContaining({ status: 'skipped', reason: 'under_target' }) } };
    expect(JSON.parse(first as string)).toEqual(expected);
    expect(JSON.parse(second as string)).toEqual(expected);
    expect(first?.startsWith(compact.slice(0, compact.indexOf('"metadata":')))).toBe(true);
  });

  it('processing.save_over_limit: false drops records still over their target; --stats-out counts statuses and reasons', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'c.yaml': 'compression:\n  target_max_tokens: 600\nprocessing:\n  save_over_limit: false\n' });
    const records = [longRun(12), trajectory()].map((r, i) => ({ ...r, prompt_index: i }));
    const result = await runInProcess(spec, ['--config', 'c.yaml', '--stats-out', 'stats.json'], { input: jsonl(records), cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect((parseJsonl(result.stdout) as Trajectory[]).map((r) => r.prompt_index)).toEqual([1]);
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { counters: Record<string, number> };
    expect(stats.counters).toMatchObject({ records_in: 2, dropped: 1, 'status.compressed': 1, 'reason.over_limit': 1, 'status.skipped': 1 });
  });
});
