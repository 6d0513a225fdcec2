// Against golden renders made by Python (golden/qwen3-render.py, Jinja2 set up as transformers'
// apply_chat_template sets it up): for each chat, hermes-to-atropos's one render of the whole chat is the
// text transformers renders, and the masks train exactly the spans transformers' return_assistant_tokens_mask
// trains when Qwen3's assistant branch is wrapped in {% generation %} (after "<|im_start|>assistant\n",
// through "<|im_end|>\n"). The chats include the ones prefix renders cannot mask (an empty <think> in an
// earlier turn, a second user turn hiding earlier reasoning) and reasoning ending in "\r", a tab and a space.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AtroposMessage } from '@hermes-datagen/to-atropos/internal/atropos.js';
import { loadChatTokenizer, type ChatTokenizer } from '@hermes-datagen/to-atropos/internal/chatTokenizer.js';
import { trainerTokens } from '@hermes-datagen/to-atropos/internal/trainerTokens.js';
import { REPO_ROOT } from '../util/cli.js';
import { QWEN3_PACKAGE } from './tokenizer.js';

interface GoldenRender {
  id: string;
  kind: string;
  messages: AtroposMessage[];
  text: string;
  assistant_spans: [number, number][];
}

const golden = readFileSync(new URL('golden/qwen3-render.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as GoldenRender);

let qwen3: ChatTokenizer;
beforeAll(async () => {
  qwen3 = await loadChatTokenizer({ tokenizer: QWEN3_PACKAGE, cwd: REPO_ROOT });
});

describe("Qwen3 chats against transformers' render (golden/qwen3-render.jsonl)", () => {
  it('covers the chats prefix renders could not mask', () => {
    expect(new Set(golden.map((g) => g.kind))).toEqual(new Set(['plain', 'empty-think', 'two-users']));
  });

  it.each(golden.map((g) => [`${g.kind} ${g.id}`, g] as const))('%s', (_name, chat) => {
    const rendered = qwen3.renderRegions(chat.messages);
    if ('problem' in rendered) throw new Error(rendered.problem);
    expect(rendered.text).toBe(chat.text);
    const result = trainerTokens(qwen3, chat.messages, 'all-assistant');
    if ('problem' in result) throw new Error(result.problem);
    expect(result.tokens).toEqual(qwen3.encode(chat.text));
    // The golden spans in tokens: the tokens of the text before each edge (every edge is a token boundary).
    const tokenAt = (offset: number) => qwen3.encode(chat.text.slice(0, offset)).length;
    const expected = new Array<number>(result.tokens.length).fill(-100);
    for (const [start, end] of chat.assistant_spans) {
      for (let k = tokenAt(start); k < tokenAt(end); k += 1) expected[k] = result.tokens[k] as number;
    }
    expect(result.masks).toEqual(expected);
  });
});
