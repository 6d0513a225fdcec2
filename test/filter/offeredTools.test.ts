import { describe, expect, it } from 'vitest';
import { hermesSystemPrompt } from '@hermes-datagen/core';
import { offeredToolNames } from '../../packages/filter/src/offeredTools.js';

describe('offeredToolNames', () => {
  it("reads upstream's template, skipping the <tools> </tools> mentioned in its first sentence", () => {
    const value = hermesSystemPrompt([{ name: 'read_file', description: 'Read </tools> a file' }, { name: 'terminal' }]);
    expect(value.indexOf('<tools> </tools>')).toBeLessThan(value.indexOf('<tools>\n['));
    expect(offeredToolNames(value)).toEqual(['read_file', 'terminal']);
  });

  it('reads the OpenAI shape {"type": "function", "function": {"name"}} too', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: {} } }, { name: 'plain' }];
    expect(offeredToolNames(`Tools:\n<tools>\n${JSON.stringify(tools)}\n</tools>`)).toEqual(['get_weather', 'plain']);
  });

  it('gives an empty list when no tools are offered', () => {
    expect(offeredToolNames(hermesSystemPrompt([]))).toEqual([]);
  });

  it('skips entries without a name', () => {
    expect(offeredToolNames('<tools>[{"name": "a"}, {"description": "x"}, 3, {"name": 4}]</tools>')).toEqual(['a']);
  });

  it.each([
    ['no <tools> block', 'You are a helpful assistant.'],
    ['only the prose mention', 'Signatures go within <tools> </tools> XML tags.'],
    ['a list that is not JSON', "<tools>\n[{'name': 'a'}]\n</tools>"],
    ['a block that is never closed', '<tools>\n[{"name": "a"}]'],
  ])('returns null for %s', (_name, value) => {
    expect(offeredToolNames(value)).toBeNull();
  });
});
