import { describe, expect, it } from 'vitest';
import { loadToolRegistry } from '@hermes-datagen/core';
import { TOOLS_WITH_DELEGATION } from '@hermes-datagen/generate/internal/run/delegation.js';
import { toolsetHasTools, toolsetsWithoutToolsWarning } from '@hermes-datagen/generate/internal/toolsetAvailability.js';
import { IMPLEMENTED_TOOLS } from '@hermes-datagen/generate/internal/tools/toolRunner.js';
import { selectToolsets } from '@hermes-datagen/generate/internal/toolsetSampling.js';

const registry = loadToolRegistry();
const warning = (flags: { toolsets?: string; distribution: string }, implemented = IMPLEMENTED_TOOLS): string | undefined =>
  toolsetsWithoutToolsWarning(selectToolsets(registry, flags), registry, implemented);

describe('toolsets without tools here', () => {
  it('are the toolsets none of whose tools runs here; delegation has one only where delegate_task does', () => {
    expect(toolsetHasTools('terminal', registry, IMPLEMENTED_TOOLS)).toBe(true);
    expect(toolsetHasTools('file', registry, IMPLEMENTED_TOOLS)).toBe(true);
    expect(toolsetHasTools('web', registry, IMPLEMENTED_TOOLS)).toBe(false);
    expect(toolsetHasTools('delegation', registry, IMPLEMENTED_TOOLS)).toBe(false);
    expect(toolsetHasTools('delegation', registry, TOOLS_WITH_DELEGATION)).toBe(true);
  });

  it('are warned about at run start when a prompt can be offered no tool at all', () => {
    expect(warning({ distribution: 'minimal' })).toBe(
      'toolsets web (--distribution minimal) have no tools available here (they need outside services): a prompt that draws only these is offered no tool (toolsets_used names them, the system turn lists no tool)',
    );
    // development draws terminal and file at 80% each: a prompt can miss both.
    expect(warning({ distribution: 'development' })).toMatch(
      /^toolsets moa, web, vision \(--distribution development\) .*: a prompt that draws only these is offered no tool/,
    );
    // default always gives terminal and file (100%): every prompt has tools, and nothing is said.
    expect(warning({ distribution: 'default' })).toBeUndefined();
    expect(warning({ toolsets: 'web,browser', distribution: 'default' })).toMatch(/^toolsets web, browser \(--toolsets\) .*: every prompt is offered no tool$/);
    expect(warning({ toolsets: 'terminal,file', distribution: 'default' })).toBeUndefined();
  });
});
