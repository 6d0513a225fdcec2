// The tools of several toolsets are their union: a tool reached twice (two toolsets sharing it, a
// toolset and an include of it, an alias next to its target, `all` next to anything) is offered once,
// and the list is sorted, whatever order the toolsets come in.
import { describe, expect, it } from 'vitest';
import { parseToolRegistry } from '@hermes-datagen/core/internal/registry.js';

const registry = parseToolRegistry(
  {
    tools: { alpha: { toolset: 'left' }, beta: { toolset: 'left' }, gamma: { toolset: 'right' }, delta: { toolset: 'messaging' } },
    toolsets: {
      left: { tools: ['beta', 'alpha'] },
      right: { tools: ['gamma', 'beta'] },
      both: { tools: ['alpha'], includes: ['left', 'right'] },
      deep: { tools: [], includes: ['both', 'left_tools'] },
    },
    toolset_aliases: { left_tools: 'left' },
  },
  'union.json',
);

describe('toolsOf: the union of toolsets', () => {
  it.each<[string, string[], string[]]>([
    ['two toolsets sharing a tool', ['left', 'right'], ['alpha', 'beta', 'gamma']],
    ['the same toolset twice', ['left', 'left'], ['alpha', 'beta']],
    ['an alias next to its target', ['left_tools', 'left'], ['alpha', 'beta']],
    ['a toolset next to one that includes it', ['left', 'both'], ['alpha', 'beta', 'gamma']],
    ['includes that reach a tool several ways', ['deep'], ['alpha', 'beta', 'gamma']],
    ['a registered toolset without a static definition', ['messaging', 'messaging'], ['delta']],
    ['`all` next to other toolsets', ['right', 'all', '*'], ['alpha', 'beta', 'delta', 'gamma']],
  ])('%s: each tool once, sorted', (_name, toolsets, tools) => {
    expect(registry.toolsOf(toolsets)).toEqual(tools);
    expect(registry.toolsOf([...toolsets].reverse())).toEqual(tools);
  });

  it('a static toolset holds each of its tools once, however it lists or includes them', () => {
    const doubled = parseToolRegistry(
      { tools: { a: { toolset: 's' } }, toolsets: { s: { tools: ['a', 'a'] }, t: { tools: ['a'], includes: ['s', 's'] } } },
      'doubled.json',
    );
    expect(doubled.toolsOf(['s'])).toEqual(['a']);
    expect(doubled.toolsOf(['t'])).toEqual(['a']);
  });
});
