// hermes-generate as a real process against the scripted endpoint (started here, in the test), with
// real tools in real workspaces. The key never appears in any output (checked by runGenerate).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadToolRegistry, parseToolValue, pythonJsonDumps, validator, type Trajectory } from '@hermes-datagen/core';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';
import type { ReasoningField, Script, ScriptedEndpoint } from '@hermes-datagen/testkit';
import { scriptedEndpoint } from '../util/scriptedEndpoint.js';
import { MAX_TURNS_MESSAGE } from '@hermes-datagen/generate/internal/maxTurns.js';
import { offeredTools, toolDefinition } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { runGenerate, TEST_MODEL } from '../util/generate.js';
import { parseJsonl, tempDir } from '../util/cli.js';
import { TEST_API_KEY } from '../util/secrets.js';

function serve(script: Script = {}): Promise<ScriptedEndpoint> {
  return scriptedEndpoint({ script, apiKey: TEST_API_KEY });
}

function expectValid(record: Trajectory): void {
  expect(validator('trajectory')(record)).toBeNull();
}

const systemTurn = (toolsets: string[]): string => hermesSystemPrompt(offeredTools(toolsets, loadToolRegistry()).map(toolDefinition));

describe('hermes-generate, a multi-step task with real tools', () => {
  const SCRIPT = `printf 'greeting: %s\\n' "$(echo hello | tr a-z A-Z)"\n`;
  const PROMPT = 'Write greet.sh that prints a greeting in capitals, then run it.';

  it('writes the file, runs it, and records every turn as upstream would', async () => {
    const { url } = await serve({
      sequences: [
        {
          match: { exact: PROMPT },
          replies: [
            {
              reasoning: "I'll write the script first.",
              content: 'Writing greet.sh.',
              tool_calls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'greet.sh', content: SCRIPT } }],
            },
            { reasoning: 'Now run it.', tool_calls: [{ id: 'call_run', name: 'terminal', arguments: { command: 'sh greet.sh' } }] },
            { reasoning: 'It printed the greeting.', content: 'The script printed: greeting: HELLO' },
          ],
        },
      ],
    });
    const run = await runGenerate(url, [{ prompt: PROMPT, id: 'greet-1' }], ['--toolsets', 'terminal,file', '--seed', '5', '--keep-workspaces']);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(1);
    const [record] = run.records as [Trajectory];
    expectValid(record);
    expect(record).toMatchObject({ id: 'greet-1', prompt_index: 0, completed: true, partial: false, api_calls: 3, toolsets_used: ['terminal', 'file'] });

    const turns = record.conversations;
    expect(turns.map((t) => t.from)).toEqual(['system', 'human', 'gpt', 'tool', 'gpt', 'tool', 'gpt']);
    expect(turns[0]?.value).toBe(systemTurn(['terminal', 'file']));
    expect(turns[1]?.value).toBe(PROMPT);
    expect(turns[2]?.value).toBe(
      `<think>\nI'll write the script first.\n</think>\nWriting greet.sh.\n<tool_call>\n${pythonJsonDumps({ name: 'write_file', arguments: { path: 'greet.sh', content: SCRIPT } })}\n</tool_call>`,
    );
    expect(parseToolValue(turns[3]?.value ?? '')).toMatchObject([
      { tool_call_id: 'call_write', name: 'write_file', content: { bytes_written: Buffer.byteLength(SCRIPT) } },
    ]);
    expect(turns[4]?.value).toBe('<think>\nNow run it.\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {"command": "sh greet.sh"}}\n</tool_call>');
    // HELLO comes from running tr, not from the script text: the command really ran.
    expect(parseToolValue(turns[5]?.value ?? '')).toEqual([
      expect.objectContaining({ tool_call_id: 'call_run', name: 'terminal', content: { output: 'greeting: HELLO', exit_code: 0, error: null } }),
    ]);
    expect(turns[6]?.value).toBe('<think>\nIt printed the greeting.\n</think>\nThe script printed: greeting: HELLO');

    expect(record.tool_stats['write_file']).toEqual({ count: 1, success: 1, failure: 0 });
    expect(record.tool_stats['terminal']).toEqual({ count: 1, success: 1, failure: 0 });
    expect(Object.keys(record.tool_stats)).toEqual(loadToolRegistry().names);
    expect(record.metadata).toMatchObject({
      batch_num: 0,
      model: TEST_MODEL,
      endpoint_host: new URL(url).host,
      key_fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
      seed: 5,
      unknown_tools: [],
    });
    expect(record.metadata.usage?.total_tokens).toBeGreaterThan(0);

    const [workspace] = readdirSync(join(run.dir, 'workspaces'));
    expect(readFileSync(join(run.dir, 'workspaces', workspace ?? '', 'greet.sh'), 'utf8')).toBe(SCRIPT);
  });

  it('runs the rule-based policy through search, write, patch, run and read to a final answer', async () => {
    const { url } = await serve();
    const run = await runGenerate(url, [{ prompt: 'Write a shell script that counts words in its task, and run it' }], ['--toolsets', 'terminal,file']);
    expect(run.code).toBe(0);
    const [record] = run.records as [Trajectory];
    expectValid(record);
    expect(record.completed).toBe(true);
    const toolTurns = record.conversations.filter((t) => t.from === 'tool').flatMap((t) => parseToolValue(t.value));
    expect(toolTurns.map((r) => r.name)).toEqual(['search_files', 'write_file', 'patch', 'terminal', 'read_file']);
    // The patch turned "draft" into "final" in the file before it ran.
    expect(toolTurns.find((r) => r.name === 'terminal')?.content).toMatchObject({ output: expect.stringContaining('label: final'), exit_code: 0 });
  });
});

describe('hermes-generate, --max-turns', () => {
  it('at the limit asks for a summary without tools and marks the record not completed', async () => {
    const { url, requests } = await serve();
    const run = await runGenerate(url, [{ prompt: 'Write a script and run it' }], ['--toolsets', 'terminal,file', '--max-turns', '2']);
    expect(run.code).toBe(0);
    const [record] = run.records as [Trajectory];
    expectValid(record);
    expect(record).toMatchObject({ completed: false, partial: false, api_calls: 2 });
    const turns = record.conversations;
    expect(turns.map((t) => t.from)).toEqual(['system', 'human', 'gpt', 'tool', 'gpt', 'tool', 'human', 'gpt']);
    expect(turns[6]?.value).toBe(MAX_TURNS_MESSAGE);
    // The summary's reasoning is dropped, as upstream strips think blocks from it.
    expect(turns[7]?.value).toMatch(/^<think>\n<\/think>\nDone: Write a script and run it\n/);
    const last = requests.at(-1)?.body as { tools?: unknown; messages: { content: string }[] };
    expect(last.tools).toBeUndefined();
    expect(last.messages.at(-1)?.content).toBe(MAX_TURNS_MESSAGE);
  });
});

describe('hermes-generate, reasoning from every source', () => {
  const FIELDS: ReasoningField[] = ['reasoning', 'reasoning_content', 'reasoning_details', 'inline_think', 'inline_scratchpad'];

  it('normalises each source to one leading <think> block, and gives a reply without reasoning an empty one', async () => {
    const { url, requests } = await serve({
      sequences: [
        ...FIELDS.map((field) => ({
          match: { exact: `answer via ${field}` },
          replies: [{ reasoning: `Thinking in ${field}.`, reasoning_field: field, content: `Answer from ${field}.` }],
        })),
        { match: { exact: 'answer without reasoning' }, replies: [{ content: 'Plain answer.' }] },
      ],
    });
    const prompts = [...FIELDS.map((field) => ({ prompt: `answer via ${field}`, id: field })), { prompt: 'answer without reasoning', id: 'none' }];
    const run = await runGenerate(url, prompts, ['--toolsets', 'todo', '--reasoning-effort', 'medium', '-c', '6']);
    expect(run.code).toBe(0);
    const byId = new Map(run.records.map((r) => [r.id, r]));
    expect(byId.size).toBe(6);
    for (const field of FIELDS) {
      const record = byId.get(field) as Trajectory;
      expectValid(record);
      expect(record.conversations.slice(2)).toEqual([{ from: 'gpt', value: `<think>\nThinking in ${field}.\n</think>\nAnswer from ${field}.` }]);
    }
    expect(byId.get('none')?.conversations.slice(2)).toEqual([{ from: 'gpt', value: '<think>\n</think>\nPlain answer.' }]);
    const efforts = requests.map((r) => (r.body as { reasoning_effort?: string }).reasoning_effort);
    expect(efforts).toEqual(Array(6).fill('medium'));
  });
});

describe('hermes-generate, bad tool calls', () => {
  it('answers an unknown tool name with an error, records the name, and ends partial after three strikes', async () => {
    const { url } = await serve({ faults: [{ kind: 'hallucinated_tool', when: { prompt: { contains: 'hallucinate' } } }] });
    const run = await runGenerate(url, [{ prompt: 'please hallucinate a tool' }], ['--toolsets', 'terminal,file']);
    expect(run.code).toBe(0);
    const [record] = run.records as [Trajectory];
    expectValid(record);
    expect(record).toMatchObject({ completed: false, partial: true, api_calls: 3 });
    expect(record.metadata.unknown_tools).toEqual(['web_search_v2']);
    expect(record.tool_stats['web_search_v2']).toEqual({ count: 3, success: 0, failure: 3 });
    const errors = record.conversations.filter((t) => t.from === 'tool').flatMap((t) => parseToolValue(t.value));
    expect(errors).toHaveLength(3);
    expect(errors[0]?.content).toEqual({ error: "tool 'web_search_v2' does not exist. Available tools: patch, read_file, search_files, terminal, write_file" });
  });

  it('answers invalid JSON arguments with an error and ends partial after three strikes', async () => {
    const { url } = await serve({ faults: [{ kind: 'invalid_arguments', when: { prompt: { contains: 'broken' } } }] });
    const run = await runGenerate(url, [{ prompt: 'a broken model writes a script' }], ['--toolsets', 'terminal,file']);
    expect(run.code).toBe(0);
    const [record] = run.records as [Trajectory];
    expectValid(record);
    expect(record).toMatchObject({ completed: false, partial: true, api_calls: 3 });
    expect(record.metadata.unknown_tools).toEqual([]);
    const errors = record.conversations.filter((t) => t.from === 'tool').flatMap((t) => parseToolValue(t.value));
    expect(errors).toHaveLength(3);
    for (const error of errors) expect((error.content as { error: string }).error).toMatch(/^the arguments of \w+ are not a JSON object \(invalid JSON/);
  });
});

describe('hermes-generate, input', () => {
  it('numbers prompts among the valid rows, keeps given ids and derives the others, and skips bad lines under --on-error skip', async () => {
    const { url } = await serve({ sequences: [{ match: { regex: '.' }, replies: [{ content: 'ok' }] }] });
    const input = '{"prompt": "first", "id": "a"}\nnot json\n{"no_prompt": 1}\n{"prompt": "second"}\n';
    const run = await runGenerate(url, input, ['--toolsets', 'todo', '--on-error', 'skip', '--rejects', 'rejects.jsonl', '-c', '1']);
    expect(run.code).toBe(0);
    expect(run.records.map((r) => [r.id, r.prompt_index, r.conversations[1]?.value])).toEqual([
      ['a', 0, 'first'],
      [expect.stringMatching(/^p1-[0-9a-f]{12}$/), 1, 'second'],
    ]);
    expect(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('stops at a bad line under the default --on-error fail (exit 3)', async () => {
    const { url } = await serve();
    const run = await runGenerate(url, '{"prompt": 3}\n', ['--toolsets', 'todo']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/<stdin>:1.*prompt/);
  });

  it('on a bad line under --on-error fail gives the running prompts --grace, then lists those still running as failures', async () => {
    // An answer slower than the test may take: waiting for it without a bound would never end.
    const { url } = await serve({ faults: [{ kind: 'slow', delay_ms: 600_000 }] });
    // file tools: the prompt gets a workspace, which must be gone afterwards.
    const run = await runGenerate(url, '{"prompt": "slow to answer"}\n{"prompt": \n', [
      '--toolsets',
      'todo,file',
      '--grace',
      '0',
      '--rejects',
      'rejects.jsonl',
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/<stdin>:2.*invalid JSON/);
    expect(run.stderr).toMatch(/the input stopped after 1 prompts: no new prompt starts; the 1 running prompt gets 0s \(--grace\)/);
    expect(run.stdout).toBe('');
    const [failure] = parseJsonl(readFileSync(join(run.dir, 'rejects.jsonl'), 'utf8'));
    expect(failure).toMatchObject({ line: 1, error_class: 'input-stopped', retryable: true, raw: '{"prompt": "slow to answer"}' });
    expect(readdirSync(join(run.dir, 'workspaces'))).toEqual([]);
  });

  it('refuses an unknown toolset or distribution before calling the endpoint (exit 2)', async () => {
    const { url, requests } = await serve();
    const toolset = await runGenerate(url, [{ prompt: 'x' }], ['--toolsets', 'terminal,telepathy']);
    expect(toolset.code).toBe(2);
    expect(toolset.stderr).toContain('unknown toolset "telepathy"');
    const distribution = await runGenerate(url, [{ prompt: 'x' }], ['--distribution', 'everything']);
    expect(distribution.code).toBe(2);
    expect(distribution.stderr).toContain('unknown distribution "everything"');
    expect(requests).toEqual([]);
  });

  it('makes no workspace for a prompt whose tools never touch files (todo only)', async () => {
    const { url } = await serve();
    const run = await runGenerate(url, [{ prompt: 'plan the day' }], ['--toolsets', 'todo']);
    expect(run.code).toBe(0);
    expect(run.records).toHaveLength(1);
    expect(existsSync(join(run.dir, 'workspaces'))).toBe(false);
  });

  it('refuses --sandbox docker where docker cannot run, before calling the endpoint (exit 2)', async () => {
    const { url, requests } = await serve();
    const noDocker = tempDir('hermes-no-docker-');
    const res = await runGenerate(url, [{ prompt: 'x', docker_image: 'python:3.12-slim' }], ['--sandbox', 'docker'], {
      env: { PATH: `${noDocker}:/nonexistent` },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('the docker sandbox was requested but the docker CLI was not found on PATH');
    expect(requests).toEqual([]);
  });

  it('samples the same toolsets for the same --seed whatever the concurrency', async () => {
    const { url } = await serve({ sequences: [{ match: { regex: '.' }, replies: [{ content: 'ok' }] }] });
    const prompts = Array.from({ length: 12 }, (_, i) => ({ prompt: `task ${i}`, id: `t${i}` }));
    const toolsetsOf = (records: Trajectory[]): Record<string, string[]> => Object.fromEntries(records.map((r) => [r.id, r.toolsets_used]));
    const one = await runGenerate(url, prompts, ['--distribution', 'balanced', '--seed', '11', '-c', '1']);
    const many = await runGenerate(url, [...prompts].reverse(), ['--distribution', 'balanced', '--seed', '11', '-c', '6']);
    expect(toolsetsOf(many.records)).toEqual(toolsetsOf(one.records));
    expect(new Set(one.records.map((r) => r.toolsets_used.join(','))).size).toBeGreaterThan(1);
  });
});
