import { expect, it } from 'vitest';
import { isPlainObject } from '@hermes-datagen/core';

it.each<[unknown, boolean]>([
  [{}, true],
  [{ a: 1 }, true],
  [null, false],
  [[], false],
  ['{}', false],
  [1, false],
  [undefined, false],
])('isPlainObject(%j) is %s', (value, expected) => {
  expect(isPlainObject(value)).toBe(expected);
});
