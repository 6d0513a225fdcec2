import { describe, expect, it } from 'vitest';
import { toolResults } from '@hermes-datagen/testkit/internal/tool-results.js';

const call = (id: string, name: string, args: unknown) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });

describe('toolResults', () => {
  it('pairs each tool message with its call and reads the text Hermes tools put in their JSON', () => {
    const results = toolResults([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a', 'terminal', { command: 'sh run.sh\n# more' }), call('b', 'read_file', { path: 'x.txt' })] },
      { role: 'tool', tool_call_id: 'a', content: JSON.stringify({ output: 'line 1\n\nline 2\nline 3\nline 4\nline 5', exit_code: 0, error: null }) },
      { role: 'tool', tool_call_id: 'b', content: JSON.stringify({ content: '     1|hello', total_lines: 1 }) },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('c', 'terminal', { command: 'false' }), call('d', 'search_files', { pattern: 'todo', path: '.' })],
      },
      { role: 'tool', tool_call_id: 'c', content: JSON.stringify({ output: '', exit_code: 1, error: null }) },
      { role: 'tool', tool_call_id: 'd', content: 'plain text result' },
    ]);
    expect(results).toEqual([
      { name: 'terminal', subject: 'sh run.sh', lines: ['line 1', 'line 2', 'line 3', 'line 4'], failed: false },
      { name: 'read_file', subject: 'x.txt', lines: ['     1|hello'], failed: false },
      { name: 'terminal', subject: 'false', lines: ['{"output":"","exit_code":1,"error":null}'], failed: true },
      { name: 'search_files', subject: 'todo', lines: ['plain text result'], failed: false },
    ]);
  });

  it('counts an error field or success:false as a failure and shortens long lines', () => {
    const [error, refused, long] = toolResults([
      { role: 'assistant', tool_calls: [call('a', 'patch', {}), call('b', 'todo', {}), call('c', 'terminal', { command: 'cat big' })] },
      { role: 'tool', tool_call_id: 'a', content: '{"error": "old_string not found"}' },
      { role: 'tool', tool_call_id: 'b', content: '{"success": false}' },
      { role: 'tool', tool_call_id: 'c', content: 'x'.repeat(500) },
    ]);
    expect(error).toEqual({ name: 'patch', subject: '', lines: ['old_string not found'], failed: true });
    expect(refused?.failed).toBe(true);
    expect(long?.lines[0]).toBe(`${'x'.repeat(160)}…`);
  });
});
