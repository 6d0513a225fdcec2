import { PassThrough, type Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Logger, wantsColor } from '@hermes-datagen/core';
import { Counters } from '@hermes-datagen/core/internal/counters.js';
import { Progress, progressStyle } from '@hermes-datagen/core/internal/progress.js';

function sink(isTTY = false): { stream: Writable; text: () => string } {
  const stream = new PassThrough();
  Object.assign(stream, { isTTY });
  let out = '';
  stream.on('data', (c: Buffer) => (out += c.toString()));
  return { stream, text: () => out };
}

describe('Logger', () => {
  it('prints place-located errors and warnings; a repeated kind is counted past the limit', () => {
    const { stream, text } = sink();
    const log = new Logger('hermes-x', stream, { color: false, maxRepeats: 2 });
    log.error('bad', { source: 'a.jsonl', line: 3 });
    for (let i = 0; i < 5; i++) log.warn(`skipped ${i}`, { source: '<stdin>', line: i + 1 }, 'bad-line');
    expect(text()).toBe('hermes-x: error (at a.jsonl:3): bad\nhermes-x: warning (at <stdin>:1): skipped 0\nhermes-x: warning (at <stdin>:2): skipped 1\n');
    expect(log.suppressed()).toEqual([['bad-line', 3]]);
  });

  it.each([
    [{}, true, undefined, true],
    [{}, false, undefined, false],
    [{ NO_COLOR: '1' }, true, undefined, false],
    [{ TERM: 'dumb' }, true, undefined, false],
    [{ NO_COLOR: '1' }, false, true, true],
    [{}, true, false, false],
  ])('colour with env %j, terminal %s, --color %s: %s', (env, isTTY, flag, expected) => {
    expect(wantsColor(sink(isTTY).stream, env, flag)).toBe(expected);
  });
});

describe('Progress', () => {
  it('says nothing unless enabled, and reports the count at the end when it is', () => {
    const quiet = sink();
    const off = new Progress('hermes-x', quiet.stream, false, 'lines');
    off.tick(10);
    off.done();
    expect(quiet.text()).toBe('');
    const loud = sink();
    const on = new Progress('hermes-x', loud.stream, true, 'lines');
    on.tick(1234);
    on.done();
    expect(loud.text()).toMatch(/^hermes-x: 1,234 records, [\d,]+\/s\n$/);
  });

  it('on a TERM=dumb terminal redraws with spaces, never an escape sequence', () => {
    expect(progressStyle(sink(true).stream, { TERM: 'dumb' })).toBe('plain');
    expect(progressStyle(sink(true).stream, { TERM: 'xterm' })).toBe('ansi');
    expect(progressStyle(sink(false).stream, { TERM: 'xterm' })).toBe('lines');
    const dumb = sink();
    const progress = new Progress('hermes-x', dumb.stream, true, 'plain');
    progress.tick(1_000_000);
    progress.done();
    expect(dumb.text()).toMatch(/^\rhermes-x: 1,000,000 records, [\d,]+\/s *\n$/);
    expect(dumb.text()).not.toContain('\u001b');
  });
});

describe('Counters', () => {
  it('adds and serialises with sorted names', () => {
    const c = new Counters();
    c.add('zeta');
    c.add('alpha', 3);
    c.add('zeta', 2);
    expect(c.get('zeta')).toBe(3);
    expect(c.get('missing')).toBe(0);
    expect(JSON.stringify(c)).toBe('{"alpha":3,"zeta":3}');
  });
});
