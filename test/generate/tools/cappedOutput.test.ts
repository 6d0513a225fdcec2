import { describe, expect, it } from 'vitest';
import { CappedOutput } from '@hermes-datagen/generate/internal/tools/cappedOutput.js';

describe('CappedOutput', () => {
  it('keeps everything within the budget', () => {
    const out = new CappedOutput(10);
    out.push(Buffer.from('hello'));
    out.push(Buffer.from('world'));
    expect(out.text()).toBe('helloworld');
  });

  it('keeps head and tail over the budget and says how much is missing', () => {
    const out = new CappedOutput(10);
    for (const piece of ['abc', 'defgh', 'ijklmnop', 'qrstuvwxyz']) out.push(Buffer.from(piece));
    expect(out.text()).toBe('abcde\n[output truncated: 16 bytes omitted]\nvwxyz');
  });

  it('handles one chunk far larger than the budget', () => {
    const out = new CappedOutput(4);
    out.push(Buffer.alloc(1000, 'x'));
    expect(out.text()).toBe('xx\n[output truncated: 996 bytes omitted]\nxx');
  });
});
