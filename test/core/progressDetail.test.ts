import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Progress } from '@hermes-datagen/core/internal/progress.js';

describe('Progress detail', () => {
  it("adds the command's own detail to each line, read when the line is drawn", () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const progress = new Progress('hermes-x', stream, true, 'lines');
    let done = 0;
    progress.setDetail(() => `${done} prompts done`);
    done = 7;
    progress.done();
    expect(text).toMatch(/^hermes-x: 0 records, 0\/s; 7 prompts done\n$/);
  });
});
