// hermes-generate against an endpoint that fails: the client's bounded retries, failed prompts
// reported with their place and without a record, and the exit codes a wrapper script reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validator } from '@hermes-datagen/core';
import { jsonl } from '../util/cli.js';
import { startScriptedEndpoint, type Script, type ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { parseJsonl } from '../util/cli.js';
import { runGenerate } from '../util/generate.js';
import { TEST_API_KEY } from '../util/secrets.js';

function serve(script: Script): Promise<ScriptedEndpoint> {
  return scriptedEndpoint({ script, apiKey: TEST_API_KEY });
}

const chatRequests = (requests: ScriptedEndpoint['requests']): number => requests.filter((r) => r.path.endsWith('/chat/completions')).length;
const ANSWER: Script['sequences'] = [{ match: { regex: '.' }, replies: [{ reasoning: 'Easy.', content: 'Answer.' }] }];

describe('hermes-generate, endpoint faults', () => {
  it('retries a 429 and writes the record; the retry is not an api call', async () => {
    const { url, requests } = await serve({ sequences: ANSWER, faults: [{ kind: 'rate_limit', when: { nth: [1] }, retry_after_s: 0 }] });
    const run = await runGenerate(url, [{ prompt: 'hello' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(1);
    expect(validator('trajectory')(run.records[0])).toBeNull();
    expect(run.records[0]).toMatchObject({ completed: true, api_calls: 1 });
    expect(chatRequests(requests)).toBe(2);
  });

  it('gives up on a prompt after a bounded number of 500s, says where it was, and exits 4', async () => {
    const { url, requests } = await serve({ sequences: ANSWER, faults: [{ kind: 'server_error', when: { prompt: { exact: 'doomed' } } }] });
    const run = await runGenerate(url, '{"prompt": "fine"}\n{"prompt": "doomed"}\n', ['--toolsets', 'todo', '-c', '1']);
    expect(run.code).toBe(4);
    expect(run.records.map((r) => r.conversations[1]?.value)).toEqual(['fine']);
    expect(run.stderr).toMatch(/warning \(at <stdin>:2\): prompt 1 failed, no trajectory: POST http:\S+\/chat\/completions answered 500 Internal Server Error/);
    expect(run.stderr).toContain('1 of 2 prompts failed and have no trajectory (1 server-error;');
    // One first attempt plus the client's bounded retries, then no more.
    const doomed = requests.filter((r) => JSON.stringify(r.body).includes('doomed')).length;
    expect(doomed).toBeGreaterThan(1);
    expect(doomed).toBeLessThanOrEqual(4);
  });

  it('exits 4 (retryable) when the endpoint refuses every connection', async () => {
    const closed = await startScriptedEndpoint();
    await closed.close();
    const run = await runGenerate(closed.url, [{ prompt: 'one' }, { prompt: 'two' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/prompt \d failed, no trajectory: POST \S+ failed: connection refused/);
    expect(run.stderr).toContain('2 of 2 prompts failed and have no trajectory (2 connection-refused;');
  });

  it("exits 1 when a failure needs a fix first (the key is refused), with doctor's diagnosis", async () => {
    const { url } = await serve({ faults: [{ kind: 'unauthorized' }] });
    const run = await runGenerate(url, [{ prompt: 'one' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /answered 401 Unauthorized: "Incorrect API key provided.": the gateway rejected the key in \$HERMES_API_KEY .*; fix: check the key is current/,
    );
  });

  it('fails a prompt whose answer is not a completion (an HTML page)', async () => {
    const { url } = await serve({ faults: [{ kind: 'html' }] });
    const run = await runGenerate(url, [{ prompt: 'one' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('answered 200 with an HTML page, not an OpenAI-compatible API');
  });

  it('retries a 200 whose body is cut short, and writes the record', async () => {
    const { url, requests } = await serve({ sequences: ANSWER, faults: [{ kind: 'truncated', when: { nth: [1] } }] });
    const run = await runGenerate(url, [{ prompt: 'hello' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(1);
    expect(chatRequests(requests)).toBe(2);
  });

  it('retries a connection reset mid-reply, and writes the record', async () => {
    const { url, requests } = await serve({ sequences: ANSWER, faults: [{ kind: 'drop', when: { nth: [1] } }] });
    const run = await runGenerate(url, [{ prompt: 'hello' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(1);
    expect(chatRequests(requests)).toBe(2);
  });

  it('fails only the prompt whose replies stay malformed; the others finish and -o holds them', async () => {
    const { url } = await serve({ sequences: ANSWER, faults: [{ kind: 'truncated', when: { prompt: { exact: 'doomed' } } }] });
    const prompts = [{ prompt: 'one' }, { prompt: 'doomed' }, { prompt: 'three' }];
    const run = await runGenerate(url, prompts, ['--toolsets', 'todo', '-c', '1', '-o', 'out.jsonl']);
    expect(run.code).toBe(4);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toMatch(/\(at <stdin>:2\): prompt 1 failed, no trajectory: .*not valid JSON/);
    const records = parseJsonl(readFileSync(join(run.dir, 'out.jsonl'), 'utf8')) as { conversations: { value: string }[] }[];
    expect(records.map((r) => r.conversations[1]?.value)).toEqual(['one', 'three']);
  });

  it('keeps the finished records in the -o file when a bad input line ends the run (exit 3)', async () => {
    const { url } = await serve({ sequences: ANSWER });
    const run = await runGenerate(url, '{"prompt": "one"}\n{"prompt": \n', ['--toolsets', 'todo', '-c', '1', '-o', 'out.jsonl']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/error \(at <stdin>:2\)/);
    const records = parseJsonl(readFileSync(join(run.dir, 'out.jsonl'), 'utf8')) as { conversations: { value: string }[] }[];
    expect(records.map((r) => r.conversations[1]?.value)).toEqual(['one']);
    expect(readdirSync(run.dir).filter((name) => name.includes('.tmp-'))).toEqual([]);
    expect(existsSync(join(run.dir, 'out.jsonl'))).toBe(true);
  });

  it('lists every failed prompt in --rejects (line, id, class, diagnosis, input line), even past the 20 warnings stderr shows', async () => {
    const { url } = await serve({ sequences: ANSWER, faults: [{ kind: 'unauthorized', when: { prompt: { contains: 'doomed' } } }] });
    const rows = Array.from({ length: 26 }, (_, i) => (i === 0 ? { prompt: 'fine' } : { prompt: `doomed ${i}`, id: `d${i}` }));
    const input = jsonl(rows);
    const run = await runGenerate(url, input, ['--toolsets', 'todo', '-c', '4', '--rejects', 'rejects.jsonl']);
    expect(run.code).toBe(1);
    expect(run.records).toHaveLength(1);
    expect(run.stderr.match(/failed, no trajectory/g)).toHaveLength(20);
    expect(run.stderr).toContain('25 of 26 prompts failed and have no trajectory (25 unauthorized; each is listed in the --rejects file)');
    const failures = parseJsonl(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8')) as Record<string, unknown>[];
    expect(failures).toHaveLength(25);
    const lines = input.split('\n');
    for (const failure of failures) {
      expect(validator('failure')(failure)).toBeNull();
      expect(failure).toMatchObject({ source: '<stdin>', error_class: 'unauthorized', retryable: false, reason: expect.stringContaining('answered 401') });
      const line = failure['line'] as number;
      expect(failure['raw']).toBe(lines[line - 1]);
      expect(failure['id']).toBe(`d${line - 1}`);
      expect(failure['prompt_index']).toBe(line - 1);
    }
  });

  it('retries {"error":{"code":429}} in a 200 as a rate limit, and writes the record', async () => {
    const { url, requests } = await serve({ sequences: ANSWER, faults: [{ kind: 'error_in_200', when: { nth: [1] } }] });
    const run = await runGenerate(url, [{ prompt: 'hello' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(1);
    expect(chatRequests(requests)).toBe(2);
  });

  it('--request-timeout bounds a call that never answers: a timeout failure (exit 4), not a hang', async () => {
    const { url } = await serve({ sequences: ANSWER, faults: [{ kind: 'timeout', when: { prompt: { exact: 'hangs' } } }] });
    // The timeout bounds every call, the fine prompt's too: 0.5 s cut those off on a loaded machine.
    const run = await runGenerate(
      url,
      [{ prompt: 'hangs' }, { prompt: 'fine' }],
      ['--toolsets', 'todo', '--request-timeout', '5', '--rejects', 'rejects.jsonl'],
    );
    expect(run.code).toBe(4);
    expect(run.records.map((r) => r.conversations[1]?.value)).toEqual(['fine']);
    expect(run.stderr).toContain('no answer within 5 s');
    const [failure] = parseJsonl(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8')) as { error_class: string }[];
    expect(failure?.error_class).toBe('timeout');
  });

  it.each([['0'], ['-1'], ['abc']])('refuses --request-timeout %s before any call (exit 2)', async (value) => {
    const { url, requests } = await serve({ sequences: ANSWER });
    const run = await runGenerate(url, [{ prompt: 'hello' }], ['--toolsets', 'todo', '--request-timeout', value]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--request-timeout');
    expect(chatRequests(requests)).toBe(0);
  });

  it('a duplicate id is a bad line naming both lines: exit 3 under --on-error fail, the earlier records kept', async () => {
    const { url } = await serve({ sequences: ANSWER });
    const run = await runGenerate(
      url,
      [
        { prompt: 'one', id: 'x' },
        { prompt: 'two', id: 'y' },
        { prompt: 'three', id: 'x' },
      ],
      ['--toolsets', 'todo', '-c', '1'],
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('error (at <stdin>:3): duplicate id "x": <stdin>:1 has the same id');
    expect(run.records.map((r) => r.id)).toEqual(['x', 'y']);
  });

  it('a duplicate id under --on-error skip: skipped into --rejects, the rest run', async () => {
    const { url } = await serve({ sequences: ANSWER });
    const run = await runGenerate(
      url,
      [{ prompt: 'one', id: 'x' }, { prompt: 'again', id: 'x' }, { prompt: 'two' }],
      ['--toolsets', 'todo', '--on-error', 'skip', '--rejects', 'rejects.jsonl'],
    );
    expect(run.code).toBe(0);
    expect(run.records.map((r) => r.conversations[1]?.value).sort()).toEqual(['one', 'two']);
    const rejects = parseJsonl(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8'));
    expect(rejects).toEqual([
      { line: 2, source: '<stdin>', reason: expect.stringContaining('duplicate id "x": <stdin>:1 has the same id'), raw: '{"prompt":"again","id":"x"}' },
    ]);
  });
});
