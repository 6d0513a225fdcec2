// Each reward rule's detector on crafted trajectories, the sum of weights, and the rules file.
import { describe, expect, it } from 'vitest';
import { applyRules, DEFAULT_RULES, loadRewardRules } from '@hermes-datagen/to-atropos/internal/rewardRules.js';
import { tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, rawGpt, system, tool, trajectory } from '../util/trajectories.js';

const ls = { name: 'terminal', arguments: { command: 'ls' } };
const only = (name: keyof typeof DEFAULT_RULES) => ({ [name]: DEFAULT_RULES[name] });

describe('task_success', () => {
  const answered = trajectory({
    conversations: [
      system(),
      human(),
      gpt({ think: 'Plan.', calls: [ls] }),
      tool({ name: 'terminal', content: 'a.txt' }),
      gpt({ think: 'Done.', text: 'a.txt' }),
    ],
  });
  it('fires for a completed run ending in a gpt answer', () => {
    expect(applyRules(answered, only('task_success'))).toEqual({ score: 20, fired: ['task_success'] });
  });
  it('does not fire when partial, not completed, ending in a tool call, or with an empty answer', () => {
    expect(applyRules({ ...answered, partial: true }, only('task_success')).fired).toEqual([]);
    expect(applyRules({ ...answered, completed: false }, only('task_success')).fired).toEqual([]);
    const endsInCall = trajectory({ conversations: [system(), human(), gpt({ think: 'Plan.', calls: [ls] })] });
    expect(applyRules(endsInCall, only('task_success')).fired).toEqual([]);
    const thinkOnly = trajectory({ conversations: [system(), human(), gpt({ think: 'Hmm.' })] });
    expect(applyRules(thinkOnly, only('task_success')).fired).toEqual([]);
  });
});

describe('code_runs_ok', () => {
  const run = (content: unknown, name = 'terminal') =>
    trajectory({
      conversations: [
        system(['terminal', 'execute_code', 'read_file']),
        human(),
        gpt({ think: 'Run.', calls: [{ name, arguments: { command: 'x' } }] }),
        tool({ name, content }),
        gpt({ think: 'Ok.', text: 'ok' }),
      ],
    });
  it('fires when the last code run succeeded with exit code 0', () => {
    expect(applyRules(run({ output: 'hi', exit_code: 0, error: null }), only('code_runs_ok')).score).toBe(10);
    expect(applyRules(run({ status: 'success', output: '3' }, 'execute_code'), only('code_runs_ok')).score).toBe(10);
  });
  it('does not fire on a non-zero exit, an error result, or without a code tool', () => {
    expect(applyRules(run({ output: '', exit_code: 2, error: null }), only('code_runs_ok')).fired).toEqual([]);
    expect(applyRules(run({ output: '', exit_code: null, error: 'could not start' }), only('code_runs_ok')).fired).toEqual([]);
    expect(applyRules(run('file text', 'read_file'), only('code_runs_ok')).fired).toEqual([]);
  });
  it('judges by the last run: a failure fixed later counts', () => {
    const fixed = trajectory({
      conversations: [
        system(),
        human(),
        gpt({ think: 'a', calls: [ls] }),
        tool({ name: 'terminal', content: { output: '', exit_code: 1, error: null } }),
        gpt({ think: 'b', calls: [ls] }),
        tool({ name: 'terminal', content: { output: 'x', exit_code: 0, error: null } }),
        gpt({ think: 'c', text: 'x' }),
      ],
    });
    expect(applyRules(fixed, only('code_runs_ok')).fired).toEqual(['code_runs_ok']);
  });
});

describe('invalid_tool_call', () => {
  it('fires on malformed, unclosed or not offered calls', () => {
    const malformed = trajectory({ conversations: [system(), human(), gpt({ think: 'a', calls: ["{'name': 'terminal'}"] })] });
    const unclosed = trajectory({ conversations: [system(), human(), rawGpt('<think>\na\n</think>\n<tool_call>\n{"name": "terminal", "arguments": {}}')] });
    const notOffered = trajectory({ conversations: [system(['read_file']), human(), gpt({ think: 'a', calls: [ls] })] });
    for (const record of [malformed, unclosed, notOffered]) expect(applyRules(record, only('invalid_tool_call')).score).toBe(-5);
  });
  it('does not fire on well-formed offered calls', () => {
    const good = trajectory({
      conversations: [
        system(['terminal']),
        human(),
        gpt({ think: 'a', calls: [ls] }),
        tool({ name: 'terminal', content: 'x' }),
        gpt({ think: 'b', text: 'x' }),
      ],
    });
    expect(applyRules(good, only('invalid_tool_call')).fired).toEqual([]);
  });
});

describe('loop_detected', () => {
  const turns = (n: number, vary = false) =>
    Array.from({ length: n }, (_, k) => [
      gpt({ think: `t${k}`, calls: [{ name: 'terminal', arguments: { command: vary ? `ls ${k}` : 'ls' } }] }),
      tool({ name: 'terminal', content: 'x' }),
    ]).flat();
  it('fires on three gpt turns in a row with the same calls', () => {
    expect(applyRules(trajectory({ conversations: [system(), human(), ...turns(3)] }), only('loop_detected')).score).toBe(-10);
  });
  it('does not fire on two repeats or on changing arguments', () => {
    expect(applyRules(trajectory({ conversations: [system(), human(), ...turns(2)] }), only('loop_detected')).fired).toEqual([]);
    expect(applyRules(trajectory({ conversations: [system(), human(), ...turns(4, true)] }), only('loop_detected')).fired).toEqual([]);
  });
});

describe('timeout', () => {
  const withResult = (content: unknown) =>
    trajectory({
      conversations: [system(), human(), gpt({ think: 'a', calls: [ls] }), tool({ name: 'terminal', content }), gpt({ think: 'b', text: 'late' })],
    });
  it('fires on a timed-out tool, exit code 124, or a run that did not complete', () => {
    expect(applyRules(withResult({ output: '', exit_code: null, error: 'timed out after 60 s; the command was killed' }), only('timeout')).score).toBe(-15);
    expect(applyRules(withResult({ output: '', exit_code: 124, error: null }), only('timeout')).score).toBe(-15);
    expect(applyRules(trajectory({ completed: false }), only('timeout')).score).toBe(-15);
  });
  it('does not fire on an ordinary completed run', () => {
    expect(applyRules(withResult({ output: 'ok', exit_code: 0, error: null }), only('timeout')).fired).toEqual([]);
  });
});

describe('weights', () => {
  it('sums the default weights of every rule that fires', () => {
    const record = trajectory({
      conversations: [
        system(['terminal']),
        human(),
        gpt({ think: 'a', calls: [ls] }),
        tool({ name: 'terminal', content: { output: 'x', exit_code: 0, error: null } }),
        gpt({ think: 'b', calls: [{ name: 'web' }] }),
        tool({ name: 'web', content: 'x' }),
        gpt({ think: 'c', text: 'done' }),
      ],
    });
    expect(applyRules(record, DEFAULT_RULES)).toEqual({ score: 20 + 10 - 5, fired: ['task_success', 'code_runs_ok', 'invalid_tool_call'] });
  });

  it('reads a weights file, and refuses unknown rules and non-numbers with exit 2', () => {
    const dir = tempDir();
    writeFiles(dir, { 'r.yaml': 'task_success: 1\ntimeout: -2\n', 'bad.json': '{"task_sucess": 1}', 'nan.json': '{"timeout": "x"}' });
    expect(loadRewardRules('r.yaml', dir)).toEqual({ task_success: 1, timeout: -2 });
    expect(loadRewardRules('default', dir)).toEqual(DEFAULT_RULES);
    expect(() => loadRewardRules('bad.json', dir)).toThrow(/unknown rule "task_sucess"/);
    expect(() => loadRewardRules('nan.json', dir)).toThrow(/must be a number/);
    try {
      loadRewardRules('missing.json', dir);
    } catch (err) {
      expect((err as { exitCode: number }).exitCode).toBe(2);
    }
    expect.assertions(5);
  });
});
