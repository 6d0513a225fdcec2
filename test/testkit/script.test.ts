import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '@hermes-datagen/core';
import { loadScript, parseScript, promptMatches, ScriptError } from '@hermes-datagen/testkit';
import { REPO_ROOT, tempDir } from '../util/cli.js';

describe('loadScript', () => {
  it('loads the example script with every kind of entry', () => {
    const script = loadScript('fixtures/testkit/coding-task.json', REPO_ROOT);
    expect(script.models).toEqual(['hermes-testkit-scripted']);
    expect(script.sequences?.[0]?.replies).toHaveLength(3);
    expect(script.sequences?.[0]?.replies[0]?.tool_calls?.[0]?.name).toBe('write_file');
    expect(script.faults?.map((f) => f.kind)).toEqual(['rate_limit', 'hallucinated_tool']);
    expect(script.policy).toEqual({ reasoning_field: 'reasoning' });
  });

  it('names the option and the file when it is missing, not JSON or malformed, as usage errors', () => {
    const dir = tempDir();
    expect(() => loadScript('absent.json', dir)).toThrow('cannot read --script absent.json (ENOENT): check the path');
    writeFileSync(join(dir, 'bad.json'), '{"sequences": [');
    expect(() => loadScript('bad.json', dir)).toThrow(UsageError);
    expect(() => loadScript('bad.json', dir)).toThrow(/^--script bad\.json: not valid JSON: /);
    writeFileSync(join(dir, 'odd.json'), '{"sequence": []}');
    expect(() => loadScript('odd.json', dir)).toThrow(ScriptError);
  });
});

describe('parseScript', () => {
  const problem = (value: unknown): string => {
    try {
      parseScript(value, 's.json');
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected the script to be rejected');
  };

  it('points at the exact place of a mistake', () => {
    expect(problem({ sequences: [{ match: { exact: 'a' }, replies: [{ contnet: 'x' }] }] })).toBe(
      'script s.json at /sequences/0/replies/0: unknown key "contnet" (allowed: content, reasoning, reasoning_field, tool_calls, finish_reason, usage)',
    );
    expect(problem({ faults: [{ kind: 'rate_limit', rate: 2 }] })).toBe('script s.json at /faults/0/rate: expected a number from 0 to 1');
    expect(problem({ faults: [{ kind: 'boom' }] })).toMatch(/at \/faults\/0\/kind: expected one of rate_limit, server_error/);
    expect(problem({ faults: [{ kind: 'drop', when: { nth: [0] } }] })).toBe('script s.json at /faults/0/when/nth/0: expected a whole number from 1 up');
    expect(problem({ sequences: [{ match: { exact: 'a' }, replies: [] }] })).toMatch(/\/sequences\/0\/replies: give at least one reply/);
    expect(problem({ sequences: [{ match: { exact: 'a', contains: 'b' }, replies: [{}] }] })).toMatch(/exactly one of "exact", "contains" or "regex"/);
    expect(problem({ sequences: [{ match: { regex: '(' }, replies: [{}] }] })).toMatch(/\/sequences\/0\/match: invalid regex/);
    expect(problem({ policy: { reasoning_field: 'thoughts' } })).toMatch(/\/policy\/reasoning_field: expected one of reasoning, reasoning_content/);
    expect(problem([])).toBe('script s.json at /: expected an object');
  });

  it('keeps tool-call arguments as given: an object, or a raw string that need not be JSON', () => {
    const script = parseScript(
      {
        sequences: [
          {
            match: { contains: 'x' },
            replies: [
              {
                tool_calls: [
                  { name: 'terminal', arguments: '{"command": "ls' },
                  { name: 'todo', arguments: { todos: [] } },
                ],
              },
            ],
          },
        ],
        faults: [{ kind: 'slow', when: { nth: 3 }, delay_ms: 5 }],
      },
      's.json',
    );
    expect(script.sequences?.[0]?.replies[0]?.tool_calls).toEqual([
      { name: 'terminal', arguments: '{"command": "ls' },
      { name: 'todo', arguments: { todos: [] } },
    ]);
    expect(script.faults?.[0]?.when?.nth).toEqual([3]);
  });
});

describe('promptMatches', () => {
  it('matches exact text, a substring, or a regex with flags', () => {
    expect(promptMatches({ exact: 'Say hi' }, 'Say hi')).toBe(true);
    expect(promptMatches({ exact: 'Say hi' }, 'Say hi!')).toBe(false);
    expect(promptMatches({ contains: 'hi' }, 'Say hi!')).toBe(true);
    expect(promptMatches({ regex: '^say', flags: 'i' }, 'Say hi')).toBe(true);
    expect(promptMatches({ regex: '^say' }, 'Say hi')).toBe(false);
  });
});
