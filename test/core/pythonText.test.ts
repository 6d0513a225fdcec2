import { describe, expect, it } from 'vitest';
import { gptTurnHasReasoning, parseGptValue, toolCallSucceeded } from '@hermes-datagen/core';
import { isPythonBlank, isPythonSpace, pythonStrip, pythonStripEnd, pythonStripStart } from '@hermes-datagen/core/internal/pythonText.js';
import { gptValueFromAssistant } from '@hermes-datagen/core/internal/think.js';

// Expected values are what Python 3.11 gives for the same strings (checked by hand with python3).
describe("Python's whitespace", () => {
  it('is exactly the code points for which str.isspace() is true', () => {
    const python = [
      0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009,
      0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
    ];
    const ours: number[] = [];
    for (let code = 0; code <= 0xffff; code++) if (isPythonSpace(code)) ours.push(code);
    expect(ours).toEqual(python);
  });

  it.each<[string, string, string, string, boolean]>([
    // text, strip(), lstrip(), rstrip(), strip() == ''
    ['\u0085', '', '', '', true],
    ['\ufeff', '\ufeff', '\ufeff', '\ufeff', false],
    ['\u001c\u001d\u001e\u001f', '', '', '', true],
    [' \t\n\u000b\u000c\r', '', '', '', true],
    ['\u3000a\u2028', 'a', 'a\u2028', '\u3000a', false],
    ['\ufeffa\ufeff', '\ufeffa\ufeff', '\ufeffa\ufeff', '\ufeffa\ufeff', false],
    ['\u0085Error: x', 'Error: x', 'Error: x', '\u0085Error: x', false],
    ['', '', '', '', true],
  ])('%j: strip %j, lstrip %j, rstrip %j, blank %s', (text, strip, lstrip, rstrip, blank) => {
    expect(pythonStrip(text)).toBe(strip);
    expect(pythonStripStart(text)).toBe(lstrip);
    expect(pythonStripEnd(text)).toBe(rstrip);
    expect(isPythonBlank(text)).toBe(blank);
  });

  it('decides "is this think block empty" as upstream does', () => {
    expect(gptTurnHasReasoning('<think>\u0085\u001c</think>\nA')).toBe(false);
    expect(gptTurnHasReasoning('<think>\ufeff</think>\nA')).toBe(true);
    expect(parseGptValue('<think>\u001fplan\u0085</think>\u001e answer \u0085').think).toEqual(['plan']);
    expect(parseGptValue('<think>x</think>\u001e answer \u0085').text).toBe('answer');
  });

  it('decides "does this result start with Error:" as upstream does', () => {
    expect(toolCallSucceeded('\u001cError: boom')).toBe(false);
    expect(toolCallSucceeded('\u0085error: boom')).toBe(false);
    expect(toolCallSucceeded('\ufeffError: boom')).toBe(true);
  });

  it('builds gpt values with Python strip: whitespace-only reasoning and content are left out', () => {
    expect(gptValueFromAssistant({ role: 'assistant', reasoning: '\u0085\u001f', content: 'A\u0085' })).toBe('<think>\n</think>\nA');
    expect(gptValueFromAssistant({ role: 'assistant', reasoning: '\ufeff', content: 'A' })).toBe('<think>\n\ufeff\n</think>\nA');
  });
});
