// str.strip/lstrip/rstrip with an argument, and the trim filter, as Python's Jinja (and so transformers'
// apply_chat_template) evaluates them. The expected strings are what Python 3 with Jinja2 3.1 renders for
// the same templates and values (ImmutableSandboxedEnvironment, trim_blocks and lstrip_blocks, as
// transformers renders chat templates); @huggingface/jinja 0.5.11 on its own ignores the arguments.
import { describe, expect, it } from 'vitest';
import * as jinja from '@huggingface/jinja';
import { usePythonStrip } from '@hermes-datagen/to-atropos/internal/jinjaPythonStrings.js';
import { loadChatTokenizer } from '@hermes-datagen/to-atropos/internal/chatTokenizer.js';
import { pythonStripChars } from '@hermes-datagen/core';
import { REPO_ROOT } from '../util/cli.js';
import { QWEN3_PACKAGE } from './tokenizer.js';

usePythonStrip(jinja);
const render = (template: string, values: Record<string, unknown> = {}) => new jinja.Template(template).render(values);

describe("Jinja's strip methods with Python's semantics", () => {
  it.each([
    ["{{ 'x\\r\\n'.rstrip('\\n') }}", {}, 'x\r'],
    ["{{ s.strip(' ') }}|{{ s.strip() }}|{{ s.lstrip('\\t') }}|{{ s.rstrip(' \\t') }}", { s: '\t x \t' }, '\t x \t|x| x \t|\t x'],
    ["{{ s.strip('</answer>') }}", { s: '</answer>xy</answer>' }, 'xy'],
    ["{{ s.lstrip('ab') }}|{{ s.rstrip('ab') }}", { s: 'abcxcba' }, 'cxcba|abcxc'],
    ['{{ s.strip() }}', { s: '\x1c x \x85' }, 'x'],
    ['{{ s.strip() }}', { s: '\ufeffx\ufeff' }, '\ufeffx\ufeff'],
    ["{{ s.strip('😀') }}", { s: '😀x😀' }, 'x'],
    ["{{ s.strip(none) }}|{{ s | trim }}|{{ s | trim('\\n') }}", { s: '\n\r x\r\n' }, 'x|x|\r x\r'],
  ])('%s', (template, values, python) => {
    expect(render(template, values)).toBe(python);
  });

  it('is idempotent, and refuses what Python refuses', () => {
    usePythonStrip(jinja);
    expect(render("{{ 'aXa'.strip('a') }}")).toBe('X');
    expect(() => render("{{ 'a'.strip(1) }}")).toThrow(/strip arg must be None or str/);
    expect(() => render("{{ 'a'.strip('a', 'b') }}")).toThrow(/at most 1 argument/);
  });

  it('strips code points, not halves of a surrogate pair', () => {
    expect(pythonStripChars('😀x😁', '😀', 'both')).toBe('x😁');
    expect(pythonStripChars('\ud83dx', '\ude00', 'end')).toBe('\ud83dx');
    expect(pythonStripChars('ab', 'ab', 'both')).toBe('');
  });
});

describe("Qwen3's template renders reasoning ending in \\r, tabs or spaces as transformers does", () => {
  it('keeps what strip("\\n") keeps', async () => {
    const qwen3 = await loadChatTokenizer({ tokenizer: QWEN3_PACKAGE, cwd: REPO_ROOT });
    const messages = [
      { role: 'user' as const, content: 'Hi' },
      { role: 'assistant' as const, content: '<think>\nreason \t\r\n</think>\n\n answer\r\n' },
    ];
    // Python: Jinja2 3.1 with Qwen3's chat_template from the same tokenizer_config.json.
    expect(qwen3.render(messages, false)).toBe(
      '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nreason \t\r\n</think>\n\n answer\r\n<|im_end|>\n',
    );
  });
});
