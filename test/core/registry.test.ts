import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng, loadToolRegistry, UsageError, type Rng } from '@hermes-datagen/core';
import { DEFAULT_REGISTRY_FILE } from '@hermes-datagen/core/internal/registry.js';
import { REPO_ROOT, tempDir } from '../util/cli.js';

const constant =
  (value: number): Rng =>
  () =>
    value;

describe('the default registry', () => {
  const registry = loadToolRegistry();

  it('is packages/core/registry/tools.json', () => {
    expect(DEFAULT_REGISTRY_FILE).toBe(join(REPO_ROOT, 'packages/core/registry/tools.json'));
    expect(existsSync(DEFAULT_REGISTRY_FILE)).toBe(true);
    expect(registry.source).toBe(DEFAULT_REGISTRY_FILE);
  });

  it('lists every tool name, sorted', () => {
    expect(registry.names.length).toBe(57);
    expect([...registry.names]).toEqual([...registry.names].sort());
    expect(registry.names).toContain('search_files');
    expect(Object.isFrozen(registry.names)).toBe(true);
  });

  it.each<[string, boolean, string | undefined]>([
    ['terminal', true, 'terminal'],
    ['process', true, 'terminal'],
    ['send_message', true, 'messaging'],
    ['web_search_v2', false, undefined],
    ['constructor', false, undefined],
  ])('%s: has %s, toolset %s', (name, has, toolset) => {
    expect(registry.has(name)).toBe(has);
    expect(registry.toolsetOf(name)).toBe(toolset);
  });

  it.each<[string, readonly string[], readonly string[]]>([
    ['a static toolset', ['web'], ['web_extract', 'web_search']],
    ['includes, expanded', ['debugging'], ['patch', 'process', 'read_file', 'search_files', 'terminal', 'web_extract', 'web_search', 'write_file']],
    ['a union, each tool once', ['web', 'search'], ['web_extract', 'web_search']],
    ['a legacy alias', ['web_tools'], ['web_extract', 'web_search']],
    [
      'a static toolset wins over the registry toolset of the same name (browser keeps web_search, not browser_cdp)',
      ['browser'],
      [
        'browser_back',
        'browser_click',
        'browser_close',
        'browser_get_images',
        'browser_navigate',
        'browser_press',
        'browser_scroll',
        'browser_snapshot',
        'browser_type',
        'browser_vision',
        'web_search',
      ],
    ],
    ['a registry toolset with no static definition', ['messaging'], ['send_message']],
    ['an alias to such a toolset', ['messaging_tools'], ['send_message']],
    ['nothing', [], []],
  ])('toolsOf: %s', (_name, toolsets, tools) => {
    expect(registry.toolsOf(toolsets)).toEqual(tools);
  });

  it.each(['all', '*'])('toolsOf: "%s" is every tool', (all) => {
    expect(registry.toolsOf([all])).toEqual(registry.names);
    expect(registry.hasToolset(all)).toBe(true);
  });

  it('refuses an unknown toolset, listing the valid ones', () => {
    expect(() => registry.toolsOf(['web', 'webz'])).toThrow(UsageError);
    expect(() => registry.toolsOf(['webz'])).toThrow(/unknown toolset "webz"; valid toolsets: .*browser.*web.*all, \*/);
    expect(registry.hasToolset('webz')).toBe(false);
  });

  it('lists toolsets sorted, static and registry ones, without aliases', () => {
    expect(registry.toolsets).toContain('debugging');
    expect(registry.toolsets).toContain('computer_use');
    expect(registry.toolsets).not.toContain('web_tools');
    expect([...registry.toolsets]).toEqual([...registry.toolsets].sort());
  });

  it('lists the 17 distributions in file order', () => {
    expect(registry.distributions.slice(0, 3)).toEqual(['default', 'image_gen', 'research']);
    expect(registry.distributions).toHaveLength(17);
    expect(registry.distribution('image_gen')).toEqual({
      name: 'image_gen',
      description: 'Heavy focus on image generation with vision and web support',
      toolsets: [
        ['image_gen', 90],
        ['vision', 90],
        ['web', 55],
        ['terminal', 45],
        ['moa', 10],
      ],
    });
  });

  it('refuses an unknown distribution, listing the valid names', () => {
    expect(() => registry.distribution('nope')).toThrow(UsageError);
    expect(() => registry.sampleToolsets('nope', constant(0))).toThrow(
      /unknown distribution "nope"; valid distributions: default, image_gen, research, .*mixed_tasks/,
    );
  });

  describe('sampleToolsets', () => {
    it.each<[string, string, number, string[]]>([
      ['every toolset at 100%', 'default', 0.999, ['web', 'vision', 'image_gen', 'terminal', 'file', 'moa', 'browser']],
      ['each draw compared with its probability, in order', 'image_gen', 0.5, ['image_gen', 'vision', 'web']],
      ['a draw equal to the probability excludes (strictly less)', 'image_gen', 0.55, ['image_gen', 'vision']],
      ['nothing drawn: the likeliest toolset', 'research', 0.99, ['web']],
      ['nothing drawn, a tie: the first of the likeliest', 'science', 0.99, ['web']],
      ['a low draw includes everything above 0', 'mixed_tasks', 0, ['browser', 'terminal', 'file', 'web', 'vision', 'image_gen']],
    ])('%s (%s, draw %s)', (_name, distribution, draw, expected) => {
      expect(registry.sampleToolsets(distribution, constant(draw))).toEqual(expected);
    });

    it('draws once per toolset', () => {
      let draws = 0;
      registry.sampleToolsets('terminal_tasks', () => {
        draws += 1;
        return 0.5;
      });
      expect(draws).toBe(6);
    });

    it('is reproducible with a seeded rng', () => {
      const sample = (seed: number): string[][] => {
        const rng = createRng(seed);
        return Array.from({ length: 50 }, () => registry.sampleToolsets('balanced', rng));
      };
      expect(sample(7)).toEqual(sample(7));
      expect(sample(7)).not.toEqual(sample(8));
    });

    it('includes each toolset with its own probability', () => {
      const rng = createRng(1);
      const included = new Map<string, number>();
      const n = 4000;
      for (let i = 0; i < n; i += 1) {
        for (const toolset of registry.sampleToolsets('browser_use', rng)) included.set(toolset, (included.get(toolset) ?? 0) + 1);
      }
      expect(included.get('browser')).toBe(n);
      expect((included.get('web') ?? 0) / n).toBeCloseTo(0.8, 1);
      expect((included.get('vision') ?? 0) / n).toBeCloseTo(0.7, 1);
    });
  });
});

describe('a user registry file', () => {
  // tempDir is removed after each test, so each test makes its own.
  const write = (name: string, content: unknown): string => {
    const file = join(tempDir('hermes-registry-'), name);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const valid = {
    tools: { alpha: { toolset: 'a' }, beta: { toolset: 'b' }, gamma: { toolset: 'g' } },
    toolsets: { a: { tools: ['alpha'] }, ab: { tools: [], includes: ['a', 'b_tools'] } },
    toolset_aliases: { b_tools: 'b' },
    distributions: { tie: { toolsets: { g: 30, a: 30 } } },
  };

  it('replaces the default', () => {
    const registry = loadToolRegistry(write('ok.json', valid));
    expect(registry.names).toEqual(['alpha', 'beta', 'gamma']);
    expect(registry.toolsOf(['ab'])).toEqual(['alpha', 'beta']);
    expect(registry.distribution('tie').description).toBe('');
    expect(registry.sampleToolsets('tie', constant(0.5))).toEqual(['g']);
  });

  it('needs only "tools"', () => {
    const registry = loadToolRegistry(write('minimal.json', { tools: { x: { toolset: 'y' } } }));
    expect(registry.names).toEqual(['x']);
    expect(registry.toolsets).toEqual(['y']);
    expect(registry.distributions).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    ['not JSON', '{"tools": ', /not valid JSON/],
    ['a tool without a toolset', { tools: { x: {} } }, /\/tools\/x is missing required key "toolset"/],
    ['an unexpected key', { tools: {}, tool: {} }, /unexpected key "tool"/],
    ['a probability over 100', { tools: { x: { toolset: 'y' } }, distributions: { d: { toolsets: { y: 101 } } } }, /\/distributions\/d\/toolsets\/y/],
    [
      'a toolset listing an unknown tool',
      { tools: { x: { toolset: 'y' } }, toolsets: { s: { tools: ['x', 'z'] } } },
      /toolset "s" lists "z", which is not in "tools"/,
    ],
    ['an unknown include', { tools: {}, toolsets: { s: { tools: [], includes: ['nope'] } } }, /toolset "s" includes unknown toolset "nope"/],
    [
      'an include cycle',
      { tools: {}, toolsets: { p: { tools: [], includes: ['q'] }, q: { tools: [], includes: ['r'] }, r: { tools: [], includes: ['p'] } } },
      /toolsets include each other in a cycle: p -> q -> r -> p/,
    ],
    ['a toolset including itself', { tools: {}, toolsets: { p: { tools: [], includes: ['p'] } } }, /cycle: p -> p/],
    ['an alias to an unknown toolset', { tools: {}, toolset_aliases: { old: 'new' } }, /toolset alias "old" points to unknown toolset "new"/],
    [
      'a distribution with an unknown toolset',
      { tools: { x: { toolset: 'y' } }, distributions: { d: { toolsets: { y: 50, nope: 50 } } } },
      /distribution "d" uses unknown toolset "nope"/,
    ],
    ['a distribution without toolsets', { tools: {}, distributions: { d: { toolsets: {} } } }, /distribution "d" has no toolsets/],
  ])('is refused when it has %s, naming the file and what is wrong', (_name, content, problem) => {
    const file = write(`bad-${_name.replaceAll(' ', '-')}.json`, content);
    const load = (): unknown => loadToolRegistry(file);
    expect(load).toThrow(UsageError);
    expect(load).toThrow(`--tools-registry ${file}: `);
    expect(load).toThrow(problem);
    expect(load).toThrow(/; without --tools-registry the default registry is used$/);
  });

  it('is refused when missing, naming the file', () => {
    const file = join(tempDir('hermes-registry-'), 'missing.json');
    expect(() => loadToolRegistry(file)).toThrow(
      `cannot read --tools-registry ${file} (ENOENT): check the path; without --tools-registry the default registry is used`,
    );
  });

  it('reads a path relative to the working directory it is given', () => {
    const dir = tempDir('hermes-registry-');
    writeFileSync(join(dir, 'mine.json'), JSON.stringify({ tools: { x: { toolset: 'y' } } }));
    expect(loadToolRegistry('mine.json', dir).names).toEqual(['x']);
  });
});
