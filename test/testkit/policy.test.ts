import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import { planTurns, policyReply } from '@hermes-datagen/testkit';
import { tempDir } from '../util/cli.js';
import { clientFor, scriptedEndpoint, extra, offer, user } from './endpoint.js';

const ALL_TOOLS = ['terminal', 'read_file', 'write_file', 'patch', 'search_files', 'todo', 'execute_code'];

/** Runs the policy's tool calls for real in `dir`, answering in the JSON shapes Hermes tools use. */
function execute(call: ChatCompletionMessageToolCall, dir: string): string {
  if (call.type !== 'function') throw new Error('expected a function call');
  const args = JSON.parse(call.function.arguments) as Record<string, string>;
  const path = join(dir, args['path'] ?? '');
  switch (call.function.name) {
    case 'write_file':
      writeFileSync(path, args['content'] ?? '');
      return JSON.stringify({ bytes_written: Buffer.byteLength(args['content'] ?? ''), dirs_created: false });
    case 'patch': {
      const text = readFileSync(path, 'utf8');
      if (!text.includes(args['old_string'] ?? '')) return JSON.stringify({ error: 'old_string not found' });
      writeFileSync(path, text.replace(args['old_string'] ?? '', args['new_string'] ?? ''));
      return JSON.stringify({ success: true });
    }
    case 'read_file': {
      const lines = readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      return JSON.stringify({ content: lines.map((l, i) => `${String(i + 1).padStart(6)}|${l}`).join('\n'), total_lines: lines.length });
    }
    case 'terminal':
      return JSON.stringify({ output: execFileSync('sh', ['-c', args['command'] ?? ''], { cwd: dir, encoding: 'utf8' }).trimEnd(), exit_code: 0, error: null });
    case 'search_files':
      return JSON.stringify({ matches: [], total_count: 0 });
    case 'todo':
      return JSON.stringify({ todos: [], summary: { total: 3 } });
    default:
      throw new Error(`the policy called a tool that was not offered: ${call.function.name}`);
  }
}

describe('planTurns', () => {
  it('uses only the tools offered, whatever the subset', () => {
    const subsets = [
      ALL_TOOLS,
      ['terminal'],
      ['read_file'],
      ['write_file'],
      ['execute_code'],
      ['write_file', 'read_file'],
      ['patch', 'terminal'],
      ['todo', 'search_files'],
      ['web_search', 'terminal'],
    ];
    for (const tools of subsets) {
      const called = planTurns('Write a python script that lists files in data.csv order', tools).flatMap((t) => t.calls.map((c) => c.name));
      expect(
        called.every((name) => tools.includes(name)),
        `${tools.join(',')} -> ${called.join(',')}`,
      ).toBe(true);
    }
    expect(planTurns('anything', [])).toEqual([]);
    expect(planTurns('anything', ['web_search'])).toEqual([]);
  });

  it('writes Python when the prompt says python, a shell script otherwise', () => {
    const write = (prompt: string) => planTurns(prompt, ['write_file']).flatMap((t) => t.calls)[0]?.arguments;
    expect(write('Write a Python script for it')?.['path']).toBe('solution.py');
    expect(write('Count lines')?.['path']).toBe('solution.sh');
    const inline = planTurns('Count lines in python', ['terminal'])[0]?.calls[0]?.arguments['command'];
    expect(inline).toMatch(/^python3 - <<'EOF'\n[\s\S]*TASK = "Count lines in python"[\s\S]*EOF$/);
    expect(planTurns('Count lines', ['execute_code'])[0]?.calls[0]).toMatchObject({
      name: 'execute_code',
      arguments: { code: expect.stringContaining('TASK = "Count lines"') },
    });
  });

  it('reads a file the prompt mentions before writing, and plans every step in its todo list', () => {
    const turns = planTurns('Summarise notes/today.md for me', ALL_TOOLS);
    expect(turns.map((t) => t.calls.map((c) => c.name).join('+'))).toEqual(['todo', 'search_files', 'read_file', 'write_file', 'patch', 'terminal+read_file']);
    expect(turns[2]?.calls[0]?.arguments).toEqual({ path: 'notes/today.md' });
    const todos = turns[0]?.calls[0]?.arguments['todos'] as { content: string; status: string }[];
    expect(todos.map((t) => t.content)).toEqual(turns.slice(1).map((t) => t.task));
    expect(todos.map((t) => t.status)).toEqual(['in_progress', 'pending', 'pending', 'pending', 'pending']);
  });
});

describe('policyReply', () => {
  it('answers directly when no tools are offered, the same way every time', () => {
    const request = { model: 'm', messages: [{ role: 'user', content: 'Explain the plan in python' }] };
    const reply = policyReply(request);
    expect(reply.tool_calls).toBeUndefined();
    expect(reply.content).toContain('No tools were offered');
    expect(reply.content).toContain('solution.py');
    expect(policyReply(request)).toEqual(reply);
  });

  it('drives a whole conversation through the endpoint, ending with the real tool output it was fed', async () => {
    const dir = tempDir();
    const target = await scriptedEndpoint();
    const client = clientFor(target);
    const prompt = 'Write a shell script that reports on this task, then run it';
    const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are an agent.' }, user(prompt)];
    const called: string[] = [];
    for (let step = 0; step < 10; step++) {
      const completion = await client.chat.completions.create({ model: 'm', messages, tools: offer(...ALL_TOOLS) });
      const message = completion.choices[0]!.message;
      messages.push(message);
      expect(typeof extra(message, 'reasoning')).toBe('string');
      if (!message.tool_calls) break;
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      for (const call of message.tool_calls) {
        called.push(call.type === 'function' ? call.function.name : call.type);
        messages.push({ role: 'tool', tool_call_id: call.id, content: execute(call, dir) });
      }
    }
    expect(called).toEqual(['todo', 'search_files', 'write_file', 'patch', 'terminal', 'read_file']);
    const answer = messages.at(-1);
    expect(answer?.role).toBe('assistant');
    const content = String(answer?.content);
    // The patch turned label=draft into label=final before the run, and the answer quotes the run's real output.
    expect(content).toContain(
      '- terminal (sh solution.sh):\n    label: final\n    task: Write a shell script that reports on this task, then run it\n    words in task: 12\n    files here: 1',
    );
    expect(content).toContain('- read_file (solution.sh):\n         1|#!/bin/sh');
    expect(content).toMatch(/Every step succeeded\.$/);
    expect(readFileSync(join(dir, 'solution.sh'), 'utf8')).toContain('label=final');
  });

  it('reports a failed tool call in its answer', () => {
    const ask = { role: 'user', content: 'count the lines' };
    const first = policyReply({ model: 'm', tools: offer('terminal'), messages: [ask] });
    const call = first.tool_calls?.[0];
    expect(call?.name).toBe('terminal');
    const reply = policyReply({
      model: 'm',
      tools: offer('terminal'),
      messages: [
        ask,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: JSON.stringify(call?.arguments) } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ output: 'sh: 1: syntax error', exit_code: 2, error: null }) },
      ],
    });
    expect(reply.tool_calls).toBeUndefined();
    expect(reply.content).toContain('- terminal (#!/bin/sh) reported an error:\n    sh: 1: syntax error');
    expect(reply.content).toContain('1 of 1 tool calls reported an error');
  });

  it('gives up on the plan and answers when the history has drifted far past it', () => {
    const stray = (i: number) => [
      { role: 'assistant', content: null, tool_calls: [{ id: `s${i}`, type: 'function' as const, function: { name: 'web_search_v2', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: `s${i}`, content: '{"error": "unknown tool"}' },
    ];
    const messages = [{ role: 'user', content: 'list files' }, ...stray(1), ...stray(2), ...stray(3)];
    expect(policyReply({ model: 'm', tools: offer('terminal'), messages: messages.slice(0, 3) }).tool_calls?.[0]?.name).toBe('terminal');
    expect(policyReply({ model: 'm', tools: offer('terminal'), messages }).tool_calls).toBeUndefined();
  });
});
