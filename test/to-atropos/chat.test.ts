// hermes-to-atropos --emit chat: OpenAI chat lines (schemas/chat-line.schema.json) for SFT trainers, the
// same on every run, rendered through Qwen3's own chat template with its tools support: each tool call
// and result appears where the template puts them, and no Hermes markup comes from our content.
import { beforeAll, describe, expect, it } from 'vitest';
import { validator, type OpenAIChatMessage, type OpenAIToolSchema, type Trajectory } from '@hermes-datagen/core';
import { hermesSystemPrompt } from '@hermes-datagen/core/internal/sharegpt.js';
import { spec } from '@hermes-datagen/to-atropos';
import { loadChatTokenizer, type ChatTokenizer } from '@hermes-datagen/to-atropos/internal/chatTokenizer.js';
import { jsonl, parseJsonl, REPO_ROOT, runInProcess, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, rawGpt, tool, trajectory } from '../util/trajectories.js';
import { QWEN3_PACKAGE } from './tokenizer.js';

interface ChatLine {
  id: string;
  messages: OpenAIChatMessage[];
  tools: OpenAIToolSchema[];
  score: number;
}

const TOOLS = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'terminal', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
];
const SYSTEM = { from: 'system' as const, value: hermesSystemPrompt(TOOLS) };

function sample(id: string, promptIndex: number, turns: Trajectory['conversations'], completed = true): Trajectory {
  return trajectory({ id, prompt_index: promptIndex, completed, conversations: [SYSTEM, human(`Task ${promptIndex}`), ...turns] });
}

const corpus = [
  sample('a', 0, [
    gpt({ think: 'List first.', calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
    tool({ name: 'terminal', content: { output: 'a.txt\nb.txt', exit_code: 0 } }),
    gpt({
      text: 'Reading both.',
      calls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'b.txt' } },
      ],
    }),
    tool({ name: 'read_file', content: 'alpha' }, { name: 'read_file', content: 'beta ✓' }),
    gpt({ think: 'Both read.', text: 'a.txt: alpha; b.txt: beta ✓' }),
  ]),
  sample('b', 1, [gpt({ think: 'Easy.', text: 'Hello!' })]),
  sample('c', 1, [gpt({ text: 'Hi' })], false),
  // A cut-off call: refused (it cannot be written without Hermes markup), with its place.
  sample('d', 2, [rawGpt('<think>\n</think>\n<tool_call>\n{"name": "terminal", "arg')]),
];

async function run(args: string[]) {
  const dir = tempDir();
  writeFiles(dir, { 'in.jsonl': jsonl(corpus) });
  return runInProcess(spec, ['in.jsonl', '--emit', 'chat', '--score', 'completed', '--keep-uniform', ...args], { cwd: dir });
}

describe('--emit chat', () => {
  it('writes one valid chat line per selected trajectory, refusing the one it cannot split (exit 3 under fail, skipped under skip)', async () => {
    const failed = await run([]);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/in\.jsonl:4.*cannot write it as OpenAI chat messages: turn 2 \(gpt\): <tool_call> 0/);
    const result = await run(['--on-error', 'skip']);
    expect(result.code).toBe(0);
    const lines = parseJsonl(result.stdout) as ChatLine[];
    expect(lines.map((line) => [line.id, line.score])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    for (const line of lines) {
      expect(validator('chat-line')(line)).toBeNull();
      expect(line.tools.map((t) => t.function.name)).toEqual(['read_file', 'terminal']);
      for (const message of line.messages) expect(message.content).not.toMatch(/<\/?tool_(call|response)>|<\/?think>/);
    }
    expect(lines[0]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'assistant']);
    expect(result.stdout).toBe((await run(['--on-error', 'skip'])).stdout);
  });

  it('--reasoning-field moves reasoning: a named field, inline, drop; a taken name is a usage error', async () => {
    const lines = async (field: string) => parseJsonl((await run(['--on-error', 'skip', '--reasoning-field', field])).stdout) as ChatLine[];
    expect((await lines('thinking'))[1]?.messages[1]).toEqual({ role: 'assistant', content: 'Hello!', thinking: 'Easy.' });
    expect((await lines('inline'))[1]?.messages[1]).toEqual({ role: 'assistant', content: '<think>\nEasy.\n</think>\n\nHello!' });
    expect((await lines('drop'))[1]?.messages[1]).toEqual({ role: 'assistant', content: 'Hello!' });
    const taken = await run(['--reasoning-field', 'content']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/--reasoning-field "content": give a new field name/);
  });
});

describe("chat lines through Qwen3's chat template (its tools support)", () => {
  let qwen3: ChatTokenizer;
  let line: ChatLine;
  beforeAll(async () => {
    qwen3 = await loadChatTokenizer({ tokenizer: QWEN3_PACKAGE, cwd: REPO_ROOT });
    line = (parseJsonl((await run(['--on-error', 'skip'])).stdout) as ChatLine[])[0] as ChatLine;
  });

  it('renders the tools in the system block, each call in its assistant turn, each result in a user <tool_response>', () => {
    const text = qwen3.render(line.messages, false, line.tools);
    const tools = line.tools.map((t) => JSON.stringify(t).replaceAll('":', '": ').replaceAll(',"', ', "'));
    const call = (name: string, args: string) => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;
    const expected =
      '<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
      `You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n${tools.join('\n')}\n</tools>\n\n` +
      'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
      '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\nTask 0<|im_end|>\n' +
      `<|im_start|>assistant\n<think>\nList first.\n</think>\n\n${call('terminal', '{"command": "ls"}')}<|im_end|>\n` +
      '<|im_start|>user\n<tool_response>\n{"output": "a.txt\\nb.txt", "exit_code": 0}\n</tool_response><|im_end|>\n' +
      `<|im_start|>assistant\nReading both.\n${call('read_file', '{"path": "a.txt"}')}\n${call('read_file', '{"path": "b.txt"}')}<|im_end|>\n` +
      '<|im_start|>user\n<tool_response>\nalpha\n</tool_response>\n<tool_response>\nbeta ✓\n</tool_response><|im_end|>\n' +
      '<|im_start|>assistant\n<think>\nBoth read.\n</think>\n\na.txt: alpha; b.txt: beta ✓<|im_end|>\n';
    expect(text).toBe(expected);
  });

  it('the rendered chat tokenizes, and every call and result is found once, in order', () => {
    const text = qwen3.render(line.messages, false, line.tools);
    expect(qwen3.decode(qwen3.encode(text))).toBe(text);
    let at = text.indexOf('<|im_start|>user\nTask 0');
    for (const message of line.messages) {
      for (const c of message.tool_calls ?? []) {
        const next = text.indexOf(`{"name": "${c.function.name}", "arguments": ${c.function.arguments}}`, at);
        expect(next).toBeGreaterThan(at);
        at = next;
      }
      if (message.role === 'tool') {
        const next = text.indexOf(`<tool_response>\n${message.content}\n</tool_response>`, at);
        expect(next).toBeGreaterThan(at);
        at = next;
      }
    }
  });
});
