// hermes-verify on crafted streams: each check's PASS / WARN / FAIL with its numbers and the exit
// code, records passed through byte for byte, and secrets found without being printed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spec } from '@hermes-datagen/verify';
import { jsonl, runInProcess, tempDir } from '../util/cli.js';
import { TEST_API_KEY } from '../util/secrets.js';
import { gpt, human, rawGpt, system, tool } from '../util/trajectories.js';
import { recordFor, rowsOf, tombstoneFor } from './fixtures.js';
import { statuses, verifyReport } from './helpers.js';

const good = (n: number): string => jsonl(Array.from({ length: n }, (_, i) => recordFor(i)));

function datasetFile(rows: number): string {
  const path = join(tempDir('hermes-verify-'), 'prompts.jsonl');
  writeFileSync(path, jsonl(rowsOf(rows)));
  return path;
}

describe('hermes-verify as a stage', () => {
  it('passes every record through unchanged, byte for byte, and prints the checklist on stderr', async () => {
    // Key order, spacing and escapes as another writer left them must survive.
    const input = `${good(2)}{"prompt_index": 2, "discarded": "no_reasoning", "prompt": "caf\\u00e9"}\n`;
    const res = await runInProcess(spec, [], { input });
    expect(res.stdout).toBe(input);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/^hermes-verify: checklist of <stdin> \(3 records\)\n {2}PASS {2}schema/);
    expect(res.stderr).toContain('hermes-verify: PASS: 0 failed, 0 warnings, 9 passed');
  });

  it('--quiet passes nothing through; --json FILE writes the report; a failed check exits 1 with the records still passed', async () => {
    const dir = tempDir('hermes-verify-');
    const input = good(1) + jsonl([recordFor(1, { tool_stats: { web_search_v2: { count: 1, success: 1, failure: 0 } } })]);
    const quiet = await runInProcess(spec, ['-q'], { input });
    expect(quiet.stdout).toBe('');
    const res = await runInProcess(spec, ['--json', join(dir, 'report.json')], { input, cwd: dir });
    expect(res.stdout).toBe(input);
    expect(res.code).toBe(1);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { status: string; exit_code: number; counts: Record<string, number> };
    expect(report).toMatchObject({ status: 'FAIL', exit_code: 1, counts: { FAIL: 1 } });
  });

  it('--stats-out counts the checks by status beside the records read', async () => {
    const dir = tempDir('hermes-verify-');
    await runInProcess(spec, ['-q', '--stats-out', join(dir, 'stats.json')], { input: good(2), cwd: dir });
    const stats = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as { exit_code: number; counters: Record<string, number> };
    expect(stats).toMatchObject({ exit_code: 0, counters: { records_in: 2, checks_passed: 9, checks_warned: 0, checks_failed: 0 } });
  });

  it('--json into a directory that does not exist is a usage error after the checklist', async () => {
    const res = await runInProcess(spec, ['-q', '--json', join(tempDir(), 'no', 'report.json')], { input: good(1) });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/PASS: 0 failed[\s\S]*error: cannot write --json .*report\.json \(ENOENT\): check the path/);
  });

  it('--json - needs --quiet (the records own stdout): a usage error otherwise', async () => {
    const res = await runInProcess(spec, ['--json', '-'], { input: good(1) });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('add --quiet');
  });

  it.each([
    ['--samples 0', ['--samples', '0']],
    ['--max-failure-rate 2', ['--max-failure-rate', '2']],
  ])('%s is a usage error', async (_name, args) => {
    expect((await runInProcess(spec, args, { input: good(1) })).code).toBe(2);
  });

  it('a line that is not JSON is bad input: exit 3 under --on-error fail; skipped and counted by the schema check under skip', async () => {
    const input = `${good(1)}{"prompt_index": 1, "conv\n`;
    expect((await runInProcess(spec, ['-q'], { input })).code).toBe(3);
    const out = await verifyReport(['--on-error', 'skip'], { input });
    expect(out.check('schema')).toMatchObject({ status: 'FAIL', numbers: { unreadable_lines: 1, trajectories: 1 } });
  });
});

describe('the checks', () => {
  it('schema: a record that breaks the schema FAILs with its place, and is still passed through', async () => {
    const bad = { ...recordFor(1), completed: 'yes' };
    const input = good(1) + jsonl([bad]);
    const out = await verifyReport([], { input });
    expect(out.check('schema')).toMatchObject({ status: 'FAIL', numbers: { invalid: 1, trajectories: 1 } });
    expect(out.check('schema').problems[0]).toMatch(/^<stdin>:2 does not match the trajectory schema: \/completed must be boolean$/);
    expect((await runInProcess(spec, [], { input })).stdout).toBe(input);
  });

  it('count: rows x samples per prompt, listing missing and extra indices and duplicate ids', async () => {
    const dataset = datasetFile(4);
    expect((await verifyReport(['--dataset', dataset], { input: good(4) })).check('count').status).toBe('PASS');
    // Prompt 2 missing, prompt 1 twice (same id), prompt 7 outside the dataset.
    const input = jsonl([recordFor(0), recordFor(1), recordFor(1), recordFor(3), recordFor(7)]);
    const out = await verifyReport(['--dataset', dataset], { input });
    expect(out.code).toBe(1);
    expect(out.check('count')).toMatchObject({
      status: 'FAIL',
      numbers: { rows: 4, expected: 4, missing_prompt_indices: [2], extra_prompt_indices: [1], out_of_range: 1, duplicate_ids: 1 },
    });
    expect(out.check('count').problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^<stdin>:3 id "p1-[0-9a-f]{12}" appeared before$/),
        "<stdin>:5 prompt_index 7 is outside the dataset's 4 rows",
      ]),
    );
  });

  it('count: a tombstone accounts for its prompt; --samples K expects K records per row, ids <prompt id>#s<k>', async () => {
    const dataset = datasetFile(2);
    expect((await verifyReport(['--dataset', dataset], { input: jsonl([recordFor(0), tombstoneFor(1)]) })).check('count')).toMatchObject({
      status: 'PASS',
      numbers: { tombstones: 1 },
    });
    const sample = (i: number, k: number) => recordFor(i, { id: `${recordFor(i).id ?? ''}#s${k}` });
    const full = jsonl([sample(0, 0), sample(0, 1), sample(1, 0), sample(1, 1)]);
    expect((await verifyReport(['--dataset', dataset, '--samples', '2'], { input: full })).check('count').status).toBe('PASS');
    const short = await verifyReport(['--dataset', dataset, '--samples', '2'], { input: jsonl([sample(0, 0), sample(0, 1), sample(1, 0), sample(1, 2)]) });
    expect(short.check('count')).toMatchObject({ status: 'FAIL', numbers: { foreign_ids: 1 } });
  });

  it('count without --dataset: duplicates only, and says how to check for missing prompts', async () => {
    const out = await verifyReport([], { input: good(2) });
    expect(out.check('count')).toMatchObject({ status: 'PASS', numbers: { rows: null } });
    expect(out.check('count').summary).toContain('give --dataset');
  });

  it('completed: WARN by default, FAIL with --require-completed', async () => {
    const input = good(1) + jsonl([recordFor(1, { completed: false }), recordFor(2, { partial: true })]);
    const warn = await verifyReport([], { input });
    expect(warn.check('completed')).toMatchObject({ status: 'WARN', numbers: { not_completed: 1, partial: 1, incomplete: 2 } });
    expect(warn.code).toBe(0);
    const fail = await verifyReport(['--require-completed'], { input });
    expect(fail.check('completed').status).toBe('FAIL');
    expect(fail.code).toBe(1);
  });

  it('tool_failures: the overall and per-tool rate against --max-failure-rate; few calls only warn', async () => {
    const failing = (i: number) =>
      recordFor(i, {}, [
        system(['terminal', 'read_file']),
        human(),
        gpt({ think: 'Try.', calls: [{ name: 'terminal', arguments: { command: 'false' } }] }),
        tool({ name: 'terminal', content: { output: '', exit_code: 1, error: 'command failed' } }),
        gpt({ think: 'It failed.', text: 'Could not.' }),
      ]);
    const few = await verifyReport([], { input: good(2) + jsonl([failing(2)]) });
    expect(few.check('tool_failures')).toMatchObject({ status: 'FAIL', numbers: { answered: 3, failures: 1 } });
    expect(few.check('tool_failures').problems[0]).toContain('too few calls to fail the check');
    const lenient = await verifyReport(['--max-failure-rate', '0.5'], { input: good(2) + jsonl([failing(2)]) });
    expect(lenient.check('tool_failures').status).toBe('PASS');
    const many = jsonl([...Array.from({ length: 30 }, (_, i) => recordFor(i)), ...Array.from({ length: 5 }, (_, i) => failing(30 + i))]);
    const out = await verifyReport(['--max-failure-rate', '0.2'], { input: many });
    expect(out.check('tool_failures')).toMatchObject({ status: 'PASS', numbers: { answered: 35, failures: 5 } });
    const strict = await verifyReport(['--max-failure-rate', '0.1'], { input: many });
    expect(strict.check('tool_failures').status).toBe('FAIL');
    expect(strict.check('tool_failures').problems[0]).toBe('terminal: 5 of 35 calls failed (14.3%)');
  });

  it('tool_distribution: a toolset offered in most records but never called WARNs; so does a call of a tool not offered', async () => {
    const terminalOnly = (i: number) =>
      recordFor(i, {}, [
        system(['terminal', 'read_file', 'write_file']),
        human(),
        gpt({ think: 'Use the shell.', calls: [{ name: 'terminal', arguments: { command: 'cat a' } }] }),
        tool({ name: 'terminal', content: { output: 'x', exit_code: 0, error: null } }),
        gpt({ think: 'Done.', text: 'x' }),
      ]);
    const out = await verifyReport([], { input: jsonl(Array.from({ length: 12 }, (_, i) => terminalOnly(i))) });
    expect(out.check('tool_distribution')).toMatchObject({ status: 'WARN', numbers: { offered_but_never_called: ['read_file', 'write_file'] } });
    expect(out.check('tool_distribution').summary).toBe('calls went to terminal; offered in most records but never called: file');
    expect(out.code).toBe(0);
    const notOffered = recordFor(0, {}, [
      system(['read_file']),
      human(),
      gpt({ think: 'Shell.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
      tool({ name: 'terminal', content: 'ok' }),
      gpt({ think: 'ok', text: 'ok' }),
    ]);
    const odd = await verifyReport([], { input: jsonl([notOffered]) });
    expect(odd.check('tool_distribution')).toMatchObject({ status: 'WARN', numbers: { calls_not_offered: 1 } });
  });

  it('tool_distribution: records that share a system turn without a tool list each offer their own toolsets_used', async () => {
    const listless = (i: number, toolsets: string[]) =>
      recordFor(i, { toolsets_used: toolsets }, [
        { from: 'system', value: 'You are a helpful assistant.' },
        human(),
        gpt({ think: 'Shell.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
        tool({ name: 'terminal', content: 'ok' }),
        gpt({ think: 'ok', text: 'ok' }),
      ]);
    const input = jsonl(Array.from({ length: 12 }, (_, i) => listless(i, i % 2 === 0 ? ['terminal'] : ['file'])));
    const out = await verifyReport([], { input });
    // The six records offered the file toolset called terminal, which it does not hold.
    expect(out.check('tool_distribution')).toMatchObject({
      status: 'WARN',
      numbers: { with_known_offer: 12, calls_not_offered: 6, offered_in_records: { terminal: 6, process: 6, read_file: 6 } },
    });
  });

  it('reasoning: WARN when some record has none; FAIL when no gpt turn has any', async () => {
    const noReasoning = (i: number) => recordFor(i, {}, [system(), human(), gpt({ text: 'Just the answer.' })]);
    const some = await verifyReport([], { input: good(2) + jsonl([noReasoning(2)]) });
    expect(some.check('reasoning')).toMatchObject({
      status: 'WARN',
      numbers: { trajectories_without_reasoning: 1, total_assistant_turns: 5, turns_with_reasoning: 4 },
    });
    const none = await verifyReport([], { input: jsonl([noReasoning(0), noReasoning(1)]) });
    expect(none.check('reasoning').status).toBe('FAIL');
    expect(none.code).toBe(1);
  });

  it('unknown_tools: a call, a used tool_stats key or metadata.unknown_tools outside the registry FAILs', async () => {
    const hallucinated = recordFor(1, {}, [
      system(),
      human(),
      gpt({ think: 'Search.', calls: [{ name: 'web_search_v2', arguments: { q: 'x' } }] }),
      tool({ name: 'web_search_v2', content: 'no such tool' }),
      gpt({ think: 'ok', text: 'ok' }),
    ]);
    const out = await verifyReport([], { input: good(1) + jsonl([hallucinated]) });
    expect(out.check('unknown_tools')).toMatchObject({ status: 'FAIL', numbers: { records_with_unknown: 1, unknown_names: { web_search_v2: 1 } } });
    const registry = join(tempDir(), 'tools.json');
    writeFileSync(
      registry,
      JSON.stringify({ tools: { terminal: { toolset: 'terminal' }, read_file: { toolset: 'file' }, web_search_v2: { toolset: 'web' } } }),
    );
    expect((await verifyReport(['--tools-registry', registry], { input: good(1) + jsonl([hallucinated]) })).check('unknown_tools').status).toBe('PASS');
  });

  it('secrets: a leaked key FAILs with its place and pattern, and is never printed', async () => {
    const aws = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
    const leaked = recordFor(1, {}, [system(), human(), gpt({ think: `The key is ${aws}.`, text: 'ok' })]);
    const input = good(1) + jsonl([leaked]);
    const res = await runInProcess(spec, ['-q', '--json', '-'], { input });
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout) as { checks: { id: string; status: string; problems: string[] }[] };
    const check = report.checks.find((c) => c.id === 'secrets');
    expect(check?.status).toBe('FAIL');
    expect(check?.problems[0]).toMatch(/^<stdin>:2 conversations\[2\]: AWS access key id "AKIA…" \(20 characters, at character \d+\)$/);
    expect(res.stdout + res.stderr).not.toContain(aws);
  });

  it('secrets: a key outside the conversation (in metadata) is found too', async () => {
    const token = ['ghp_', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'].join('');
    const out = await verifyReport([], { input: jsonl([recordFor(0, { metadata: { batch_num: 0, timestamp: 't', model: 'm', trace_id: token } })]) });
    expect(out.check('secrets').problems[0]).toMatch(/^<stdin>:1 id, toolsets_used or metadata: GitHub token "gh…" \(40 characters/);
    expect(JSON.stringify(out.report)).not.toContain(token);
  });

  it('secrets: the value of $HERMES_API_KEY in a record is found in any form (here JSON-escaped in a tool result) and shown only by fingerprint', async () => {
    const key = `x"${TEST_API_KEY}`;
    const leaked = recordFor(1, {}, [
      system(),
      human(),
      gpt({ think: 'Env.', calls: [{ name: 'terminal', arguments: { command: 'env' } }] }),
      tool({ name: 'terminal', content: `KEY=${key}` }),
      gpt({ think: 'ok', text: 'ok' }),
    ]);
    const res = await runInProcess(spec, ['-q', '--json', '-'], { input: jsonl([leaked]), env: { HERMES_API_KEY: key } });
    const report = JSON.parse(res.stdout) as { checks: { id: string; status: string; problems: string[]; numbers: { by_pattern: Record<string, number> } }[] };
    const check = report.checks.find((c) => c.id === 'secrets');
    expect(check?.status).toBe('FAIL');
    expect(check?.problems[0]).toMatch(/conversations\[3\]: the key in \$HERMES_API_KEY \(fingerprint [0-9a-f]{8}\)/);
    expect(res.stdout + res.stderr).not.toContain(TEST_API_KEY);
  });

  it.each([
    ['base64', (key: string) => Buffer.from(`user:${key}`).toString('base64')],
    ['base64url', (key: string) => Buffer.from(`ab${key}`).toString('base64url')],
    ['hex', (key: string) => Buffer.from(key).toString('hex').toUpperCase()],
    ['reversed', (key: string) => [...key].reverse().join('')],
  ])('secrets: the key of --api-key-env encoded as %s in a record FAILs', async (_name, encode) => {
    const key = `${TEST_API_KEY}-custom`;
    const leaked = recordFor(1, {}, [
      system(),
      human(),
      gpt({ think: 'Env.', calls: [{ name: 'terminal', arguments: { command: 'env' } }] }),
      tool({ name: 'terminal', content: encode(key) }),
      gpt({ think: 'ok', text: 'ok' }),
    ]);
    const res = await runInProcess(spec, ['-q', '--json', '-', '--api-key-env', 'MY_GATEWAY_KEY'], { input: jsonl([leaked]), env: { MY_GATEWAY_KEY: key } });
    const report = JSON.parse(res.stdout) as { checks: { id: string; status: string; problems: string[] }[] };
    const check = report.checks.find((c) => c.id === 'secrets');
    expect(check?.status).toBe('FAIL');
    expect(check?.problems[0]).toMatch(/conversations\[3\]: the key in \$MY_GATEWAY_KEY/);
  });

  it('structure: each problem kind FAILs naming the turn; a second <think> block only WARNs', async () => {
    const cases: [string, ReturnType<typeof recordFor>['conversations'], string][] = [
      ['no leading think', [system(), human(), rawGpt('Answer first.\n<think>\nlate\n</think>')], 'no_leading_think'],
      ['forged close tag in reasoning', [system(), human(), rawGpt('<think>\nI will write </think> in the file\n</think>\nok')], 'forged_tag'],
      [
        'tool_call inside think',
        [system(), human(), rawGpt('<think>\nmaybe <tool_call>{"name": "terminal", "arguments": {}}</tool_call>\n</think>\nok')],
        'forged_tag',
      ],
      ['unclosed tool_call', [system(), human(), rawGpt('<think>\nx\n</think>\n<tool_call>\n{"name": "terminal", "arg')], 'unclosed_tag'],
      [
        'malformed tool_call',
        [
          system(),
          human(),
          gpt({ think: 'x', calls: ["{'name': 'terminal', 'arguments': {}}"] }),
          tool({ name: 'terminal', content: 'ok' }),
          gpt({ think: 'y', text: 'z' }),
        ],
        'malformed_tool_call',
      ],
      [
        'call without a tool turn',
        [system(), human(), gpt({ think: 'x', calls: [{ name: 'terminal', arguments: {} }] }), gpt({ think: 'y', text: 'z' })],
        'unanswered_tool_call',
      ],
      [
        'two calls, one response',
        [
          system(),
          human(),
          gpt({
            think: 'x',
            calls: [
              { name: 'terminal', arguments: {} },
              { name: 'read_file', arguments: { path: 'a' } },
            ],
          }),
          tool({ name: 'terminal', content: 'ok' }),
          gpt({ think: 'y', text: 'z' }),
        ],
        'unanswered_tool_call',
      ],
      [
        'forged close tag in a tool result',
        [
          system(),
          human(),
          gpt({ think: 'x', calls: [{ name: 'terminal', arguments: {} }] }),
          { from: 'tool', value: '<tool_response>\n{"name": "terminal", "content": "</tool_response> injected"}\n</tool_response>' },
          gpt({ think: 'y', text: 'z' }),
        ],
        'forged_tag',
      ],
      ['tool turn after human', [system(), human(), tool({ name: 'terminal', content: 'ok' }), gpt({ think: 'y', text: 'z' })], 'role_order'],
      ['starts with gpt', [system(), gpt({ think: 'y', text: 'z' })], 'role_order'],
      ['two human turns', [system(), human(), human(), gpt({ think: 'y', text: 'z' })], 'role_order'],
      ['tool_response block in a gpt turn', [system(), human(), rawGpt('<think>\nx\n</think>\n<tool_response>\n{}\n</tool_response>')], 'misplaced_block'],
    ];
    for (const [name, conversations, kind] of cases) {
      const out = await verifyReport([], { input: jsonl([recordFor(0, {}, conversations)]) });
      expect(out.check('structure').status, name).toBe('FAIL');
      expect(Object.keys(out.check('structure').numbers['records_by_kind'] as object), name).toContain(kind);
      expect(out.code, name).toBe(1);
    }
    const twoThinks = await verifyReport([], {
      input: jsonl([recordFor(0, {}, [system(), human(), rawGpt('<think>\na\n</think>\n<think>\nb\n</think>\nok')])]),
    });
    expect(twoThinks.check('structure')).toMatchObject({ status: 'WARN', numbers: { records_by_kind: { extra_think: 1 } } });
    expect(twoThinks.check('structure').problems[0]).toBe('<stdin>:1 conversations[2]: 2 <think> blocks (one leading block expected)');
  });

  it('a clean stream of every kind of turn PASSes every check', async () => {
    const out = await verifyReport(['--dataset', datasetFile(3)], { input: good(3) });
    expect(Object.values(statuses(out)).every((s) => s === 'PASS')).toBe(true);
    expect(out.code).toBe(0);
  });
});
