import { describe, expect, it } from 'vitest';
import { editDistance, notANumberMessage, unknownArgumentsMessage } from '@hermes-datagen/core/internal/usageMessages.js';

describe('usage messages', () => {
  it('edit distance counts single-character edits', () => {
    expect(editDistance('invert', 'invert')).toBe(0);
    expect(editDistance('invrt', 'invert')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('names an unknown option once, as typed, and suggests the nearest known one only when it is close', () => {
    const known = ['help', 'output', 'o', 'on-error', 'onError', 'concurrency', 'c'];
    expect(unknownArgumentsMessage('Unknown arguments: output-fil, outputFil', known, ['--output-fil', 'x'])).toBe(
      'unknown option --output-fil (did you mean --output?)',
    );
    expect(unknownArgumentsMessage('Unknown argument: concurency', known, ['--concurency=3'])).toBe(
      'unknown option --concurency (did you mean --concurrency?)',
    );
    expect(unknownArgumentsMessage('Unknown argument: zebra', known, ['--zebra'])).toBe('unknown option --zebra');
    expect(unknownArgumentsMessage('Unknown arguments: extra, words', known, ['extra', 'words'])).toBe('unknown arguments extra, words');
    expect(unknownArgumentsMessage('Not enough arguments', known, [])).toBe('Not enough arguments');
  });

  it('names the word a number option was given, through its long name or an alias', () => {
    expect(notANumberMessage({ _: [], c: Number.NaN, concurrency: Number.NaN }, ['-c', 'abc'])).toBe("--concurrency must be a number, got 'abc'");
    expect(notANumberMessage({ _: [], 'max-turns': Number.NaN, maxTurns: Number.NaN }, ['--max-turns=ten'])).toBe("--max-turns must be a number, got 'ten'");
    expect(notANumberMessage({ _: [], concurrency: 4 }, ['-c', '4'])).toBeUndefined();
  });
});
