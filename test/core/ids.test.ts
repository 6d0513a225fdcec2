import { describe, expect, it } from 'vitest';
import { promptId } from '@hermes-datagen/core';
import { derivedPromptId } from '@hermes-datagen/core/internal/ids.js';

describe('derivedPromptId', () => {
  it('is the index and the first 12 hex digits of the text hash', () => {
    // sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e...
    expect(derivedPromptId(7, 'hello')).toBe('p7-2cf24dba5fb0');
  });

  it('is the same for the same position and text, and differs when either changes', () => {
    expect(derivedPromptId(3, 'task')).toBe(derivedPromptId(3, 'task'));
    expect(derivedPromptId(3, 'task')).not.toBe(derivedPromptId(4, 'task'));
    expect(derivedPromptId(3, 'task')).not.toBe(derivedPromptId(3, 'task!'));
  });

  it('hashes the text as UTF-8, so non-ASCII prompts get distinct ids', () => {
    expect(derivedPromptId(0, 'café')).not.toBe(derivedPromptId(0, 'cafe'));
    expect(derivedPromptId(0, 'café')).toMatch(/^p0-[0-9a-f]{12}$/);
  });
});

describe('promptId', () => {
  it("uses the row's own id when given", () => {
    expect(promptId({ prompt: 'x', id: 'task-17' }, 5)).toBe('task-17');
  });

  it('derives one when the row has none or an empty one', () => {
    expect(promptId({ prompt: 'x' }, 5)).toBe(derivedPromptId(5, 'x'));
    expect(promptId({ prompt: 'x', id: '' }, 5)).toBe(derivedPromptId(5, 'x'));
  });
});
